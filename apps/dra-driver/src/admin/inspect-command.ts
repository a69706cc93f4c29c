import { DRIVER_NAME, type RegistryEntry, type SriovDraError, annotations, parseBindingAnnotation, parseRegistry } from '@sriov-dra/contract';
import { KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { parseConsumerClaim, parseConsumerPod } from '../managed/consumer-objects.ts';
import { podClaimNames } from '../managed/pod-claim-names.ts';
import { checkpointPhases } from './checkpoint-phases.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, connectionFlags, getIfPresent, parseCommandLine, runCommand } from './cli-connection.ts';
import { commandLineError } from './cli-failure.ts';
import { formatTable, writeOutput } from './cli-output.ts';
import type { Output } from './command-io.ts';
import { permissionGaps, requiredPermissions } from './driver-permissions.ts';
import { type AllocatedVf, type PodInspection, inspectPod } from './pod-inspection.ts';

export const INSPECT_COMMAND = 'inspect';

export function inspectUsage(): string {
  return `Usage: sriov-dra ${INSPECT_COMMAND} pod NAME [-n NAMESPACE] [flags]
       sriov-dra ${INSPECT_COMMAND} pod NAMESPACE/NAME [flags]      (also pod/NAME)

Shows a Pod's managed networks from the API: for each VF this driver allocated to its claims, the claim
and request, the device and PCI address, the source template and its resourceVersion, the shadow, the
interface, the IPAM its frozen configuration uses, the addresses Multus reported, and a state (attached,
pending-cni, not-prepared, shadow-missing, shadow-terminating, shadow-replaced, shadow-unreadable); then
the Pod's own networks-annotation entries that select a source template directly, which conflict with
managed attachment. The table shows CLAIM, DEVICE, SHADOW, INTERFACE, IPS and STATE; -o wide adds
REQUEST, PCI, SOURCE, IPAM and PHASE; -o json and -o yaml print everything.

  --plugins-dir DIR    on the Pod's node: the kubelet plugins directory (/var/lib/kubelet/plugins); adds
                       each binding's phase from the driver's checkpoint (Pending, Ready, Deleting,
                       ReleaseComplete), read without changing it
  --driver-user USER   the driver's identity, e.g. system:serviceaccount:dra-driver-sriov:dra-driver-sriov;
                       lists what it may not do that this Pod needs (needs permission to create
                       SubjectAccessReviews)

${CONNECTION_USAGE}
Exit status: 0 shown; 1 failed (one line on stderr: error code, what failed, what to do).
`;
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: SriovDraError }): T {
  if (!result.ok) throw result.error;
  return result.value;
}

interface GatherOptions {
  readonly pluginsDir?: string;
  readonly driverUser?: string;
}

/** Reads what inspection joins: the Pod, its claims' allocations of this driver, its registry and shadows; on request, phases and permission gaps. */
async function gather(client: KubeClient, namespace: string, name: string, options: GatherOptions): Promise<PodInspection> {
  const rawPod = await client.get(resourceTypes.pod, { namespace, name });
  const pod = unwrap(parseConsumerPod(rawPod, { kind: 'Pod', namespace, name }));
  const allocated: AllocatedVf[] = [];
  for (const entry of unwrap(podClaimNames(pod))) {
    if (entry.kind !== 'claim') continue;
    const raw = await getIfPresent(() => client.get(resourceTypes.resourceClaim, { namespace, name: entry.claimName }));
    if (raw === undefined) continue;
    const claim = unwrap(parseConsumerClaim(raw, { kind: 'ResourceClaim', namespace, name: entry.claimName }));
    for (const result of claim.allocation?.results ?? []) {
      if (result.driver !== DRIVER_NAME) continue;
      allocated.push({ claimName: claim.name, claimUID: claim.uid, request: result.request, pool: result.pool, device: result.device });
    }
  }
  const rawRegistry = rawPod.metadata.annotations?.[annotations.managedNetworks];
  const registry: readonly RegistryEntry[] =
    rawRegistry === undefined
      ? []
      : unwrap(parseRegistry(rawRegistry, { kind: 'Pod', namespace, name, field: `annotation ${annotations.managedNetworks}` })).entries;
  const shadows = new Map<string, KubeObject | undefined>();
  for (const entry of registry) {
    shadows.set(entry.name, await getIfPresent(() => client.get(resourceTypes.networkAttachmentDefinition, { namespace: entry.namespace, name: entry.name })));
  }
  const sourceNamespaces = [...shadows.values()].flatMap((shadow) => {
    const raw = shadow?.metadata.annotations?.[annotations.binding];
    const binding = raw === undefined ? undefined : parseBindingAnnotation(raw);
    return binding?.ok === true ? [binding.value.source.namespace] : [];
  });
  return inspectPod({
    pod: rawPod,
    allocated,
    registry,
    shadows,
    ...(options.pluginsDir === undefined ? {} : { phases: await checkpointPhases(options.pluginsDir) }),
    ...(options.driverUser === undefined
      ? {}
      : { permissionGaps: await permissionGaps(client, options.driverUser, requiredPermissions(namespace, sourceNamespaces)) }),
  });
}

const POD_KINDS = new Set(['pod', 'pods', 'po']);

/** The Pod a command line names, in any of kubectl's spellings: `pod NAME`, `pod NAMESPACE/NAME`, `pod/NAME`. */
function podTarget(positionals: readonly string[], namespace: string | undefined): { namespace: string | undefined; name: string } {
  const [first = '', ...rest] = positionals;
  const slash = first.indexOf('/');
  const [kind, target, extra] =
    slash >= 0 && POD_KINDS.has(first.slice(0, slash)) ? [first.slice(0, slash), first.slice(slash + 1), ...rest] : [first, ...rest];
  if (!POD_KINDS.has(kind)) throw commandLineError(INSPECT_COMMAND, `expected "pod" and a Pod's name, got ${JSON.stringify(positionals.join(' '))}`);
  if (target === undefined || target === '') throw commandLineError(INSPECT_COMMAND, 'the Pod\u2019s name is missing');
  if (extra !== undefined) throw commandLineError(INSPECT_COMMAND, `one Pod at a time; unexpected ${JSON.stringify(extra)}`);
  const parts = target.split('/');
  if (parts.length === 1) return { namespace, name: target };
  const [inNamespace = '', name = ''] = parts;
  if (parts.length > 2 || inNamespace === '' || name === '')
    throw commandLineError(INSPECT_COMMAND, `${JSON.stringify(target)} is neither NAME nor NAMESPACE/NAME`);
  if (namespace !== undefined && namespace !== inNamespace)
    throw commandLineError(INSPECT_COMMAND, `the Pod ${target} is in namespace ${inNamespace}, but -n says ${namespace}`);
  return { namespace: inNamespace, name };
}

function table(inspection: PodInspection, wide: boolean): string {
  const columns: readonly (readonly [string, (view: PodInspection['attachments'][number]) => string, boolean])[] = [
    ['CLAIM', (view) => view.claim, false],
    ['REQUEST', (view) => view.request, true],
    ['DEVICE', (view) => view.device, false],
    ['PCI', (view) => view.pci, true],
    ['SOURCE', (view) => view.source, true],
    ['SHADOW', (view) => view.shadow, false],
    ['INTERFACE', (view) => view.interface, false],
    ['IPAM', (view) => view.ipam, true],
    ['IPS', (view) => view.ips.join(',') || '-', false],
    ['PHASE', (view) => view.phase, true],
    ['STATE', (view) => view.state, false],
  ];
  const shown = columns.filter(([, , wideOnly]) => wide || !wideOnly);
  const conflicts = inspection.conflictingManualEntries.map(
    (entry) => `conflicting manual selection: ${entry} is a managed template; remove it from the networks annotation\n`,
  );
  const gaps = inspection.permissionGaps.map((gap) => `permission gap: ${gap}\n`);
  return `${formatTable(
    shown.map(([title]) => title),
    inspection.attachments.map((view) => shown.map(([, cell]) => cell(view))),
  )}${conflicts.join('')}${gaps.join('')}`;
}

export function inspectCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  return runCommand(err, async (session) => {
    const { values, positionals } = parseCommandLine(INSPECT_COMMAND, argv, {
      ...CONNECTION_OPTIONS,
      'plugins-dir': { type: 'string' },
      'driver-user': { type: 'string' },
    });
    if (values.help === true) {
      out.write(inspectUsage());
      return;
    }
    const flags = connectionFlags(INSPECT_COMMAND, values);
    const target = podTarget(positionals, flags.namespace);
    const { client, namespace } = session.connect(target.namespace === undefined ? flags : { ...flags, namespace: target.namespace });
    const { 'plugins-dir': pluginsDir, 'driver-user': driverUser } = values;
    const inspection = await gather(client, namespace, target.name, {
      ...(pluginsDir === undefined ? {} : { pluginsDir }),
      ...(driverUser === undefined ? {} : { driverUser }),
    });
    writeOutput(out, flags.output, inspection, (wide) => table(inspection, wide));
  });
}
