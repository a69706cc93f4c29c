import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { DRIVER_NAME, type RegistryEntry, SriovDraError, annotations, isSriovDraError, parseBindingAnnotation, parseRegistry } from '@sriov-dra/contract';
import { KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import { managedBindingsOf } from '../managed/binding-records.ts';
import { parseConsumerClaim, parseConsumerPod } from '../managed/consumer-objects.ts';
import { podClaimNames } from '../managed/pod-claim-names.ts';
import { EXIT, type Output } from './command-io.ts';
import { permissionGaps, requiredPermissions } from './driver-permissions.ts';
import { type AllocatedVf, type PodInspection, inspectPod } from './pod-inspection.ts';

export const INSPECT_COMMAND = 'inspect';

export function inspectUsage(): string {
  return `Usage: sriov-dra ${INSPECT_COMMAND} pod NAMESPACE/NAME [--kubeconfig FILE] [--plugins-dir DIR] [--driver-user USER] [-o json]

Shows a Pod's managed networks from the API: for each VF this driver allocated to its claims, the claim
and request, the device and PCI address, the source template and its resourceVersion, the shadow, the
interface, the IPAM its frozen configuration uses, the addresses Multus reported, and a state (attached,
pending-cni, not-prepared, shadow-missing, shadow-terminating, shadow-replaced, shadow-unreadable); then
the Pod's own networks-annotation entries that select a source template directly, which conflict with
managed attachment.

  --plugins-dir DIR    on the Pod's node: the kubelet plugins directory (/var/lib/kubelet/plugins); adds
                       each binding's phase from the driver's checkpoint (Pending, Ready, Deleting,
                       ReleaseComplete), read without changing it
  --driver-user USER   the driver's identity, e.g. system:serviceaccount:dra-driver-sriov:dra-driver-sriov;
                       lists what it may not do that this Pod needs (needs permission to create
                       SubjectAccessReviews)

Exit status: 0 shown; 1 the Pod or its objects cannot be read (code and remedy on stderr); 2 usage.
`;
}

async function getOrUndefined<T extends KubeObject>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: SriovDraError }): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/** Binding phases by attachmentID from the checkpoint in the node's plugins directory. */
async function checkpointPhases(pluginsDir: string): Promise<Map<string, string>> {
  const store = await CheckpointStore.open({ directory: join(pluginsDir, DRIVER_NAME) });
  return new Map(
    store
      .claims()
      .flatMap(managedBindingsOf)
      .map((binding) => [binding.attachmentID, binding.phase]),
  );
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
    const raw = await getOrUndefined(() => client.get(resourceTypes.resourceClaim, { namespace, name: entry.claimName }));
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
    shadows.set(
      entry.name,
      await getOrUndefined(() => client.get(resourceTypes.networkAttachmentDefinition, { namespace: entry.namespace, name: entry.name })),
    );
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

function table(inspection: PodInspection): string {
  const header = ['CLAIM', 'REQUEST', 'DEVICE', 'PCI', 'SOURCE', 'SHADOW', 'INTERFACE', 'IPAM', 'IPS', 'PHASE', 'STATE'];
  const rows = inspection.attachments.map((view) => [
    view.claim,
    view.request,
    view.device,
    view.pci,
    view.source,
    view.shadow,
    view.interface,
    view.ipam,
    view.ips.join(',') || '-',
    view.phase,
    view.state,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const conflicts = inspection.conflictingManualEntries.map(
    (entry) => `conflicting manual selection: ${entry} is a managed template; remove it from the networks annotation\n`,
  );
  const gaps = inspection.permissionGaps.map((gap) => `permission gap: ${gap}\n`);
  return `${[line(header), ...rows.map(line)].join('\n')}\n${conflicts.join('')}${gaps.join('')}`;
}

export async function inspectCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  let parsed: {
    values: { kubeconfig?: string; output?: string; 'plugins-dir'?: string; 'driver-user'?: string; help?: boolean };
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        kubeconfig: { type: 'string' },
        output: { type: 'string', short: 'o' },
        'plugins-dir': { type: 'string' },
        'driver-user': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    err.write(`${typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error)}\n${inspectUsage()}`);
    return EXIT.usage;
  }
  if (parsed.values.help === true) {
    out.write(inspectUsage());
    return EXIT.ok;
  }
  const [kind, target] = parsed.positionals;
  const [namespace, name, extra] = (target ?? '').split('/');
  if (
    kind !== 'pod' ||
    namespace === undefined ||
    namespace === '' ||
    name === undefined ||
    name === '' ||
    extra !== undefined ||
    (parsed.values.output ?? 'json') !== 'json'
  ) {
    err.write(`expected: pod NAMESPACE/NAME [-o json]\n${inspectUsage()}`);
    return EXIT.usage;
  }
  const client = KubeClient.fromKubeConfig(parsed.values.kubeconfig);
  try {
    const { 'plugins-dir': pluginsDir, 'driver-user': driverUser } = parsed.values;
    const inspection = await gather(client, namespace, name, {
      ...(pluginsDir === undefined ? {} : { pluginsDir }),
      ...(driverUser === undefined ? {} : { driverUser }),
    });
    out.write(parsed.values.output === 'json' ? `${JSON.stringify(inspection, null, 2)}\n` : table(inspection));
    return EXIT.ok;
  } catch (error) {
    if (!isSriovDraError(error)) throw error;
    err.write(`${error.message}\n`);
    return EXIT.refused;
  } finally {
    client.close();
  }
}
