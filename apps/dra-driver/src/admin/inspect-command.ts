import { parseArgs } from 'node:util';
import { DRIVER_NAME, type RegistryEntry, SriovDraError, annotations, isSriovDraError, parseRegistry } from '@sriov-dra/contract';
import { KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { parseConsumerClaim, parseConsumerPod } from '../managed/consumer-objects.ts';
import { podClaimNames } from '../managed/pod-claim-names.ts';
import { EXIT, type Output } from './command-io.ts';
import { type AllocatedVf, type PodInspection, inspectPod } from './pod-inspection.ts';

export const INSPECT_COMMAND = 'inspect';

export function inspectUsage(): string {
  return `Usage: sriov-dra ${INSPECT_COMMAND} pod NAMESPACE/NAME [--kubeconfig FILE] [-o json]

Shows a Pod's managed networks from the API alone: for each VF this driver allocated to its claims, the
claim and request, the device and PCI address, the source template and its resourceVersion, the shadow,
the interface, the addresses Multus reported, and a state (attached, pending-cni, not-prepared,
shadow-missing, shadow-terminating, shadow-replaced, shadow-unreadable); then the Pod's own
networks-annotation entries that select a source template directly, which conflict with managed attachment.

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

/** Reads what inspection joins: the Pod, its claims' allocations of this driver, its registry and shadows. */
async function gather(client: KubeClient, namespace: string, name: string): Promise<PodInspection> {
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
  return inspectPod({ pod: rawPod, allocated, registry, shadows });
}

function table(inspection: PodInspection): string {
  const header = ['CLAIM', 'REQUEST', 'DEVICE', 'PCI', 'SOURCE', 'SHADOW', 'INTERFACE', 'IPS', 'STATE'];
  const rows = inspection.attachments.map((view) => [
    view.claim,
    view.request,
    view.device,
    view.pci,
    view.source,
    view.shadow,
    view.interface,
    view.ips.join(',') || '-',
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
  return `${[line(header), ...rows.map(line)].join('\n')}\n${conflicts.join('')}`;
}

export async function inspectCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  let parsed: { values: { kubeconfig?: string; output?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { kubeconfig: { type: 'string' }, output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
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
    const inspection = await gather(client, namespace, name);
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
