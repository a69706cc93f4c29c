// What a platform engineer checks on a running Pod (§14.4), read from the API objects themselves and the
// sandbox's interfaces: for each SR-IOV request of its claims, the request it is paired with by the
// claim's own matchAttribute constraints (never by enumeration order), the devices and their published
// PCIe roots, the VF's PCI address, the shadow the driver bound it to, the source template (the rail),
// and the interface and address the CNI runtime reports and the sandbox carries.
import { execFileSync } from 'node:child_process';
import { DRIVER_NAME, annotations, parseBindingAnnotation, parseRegistry } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';

export interface PodNetworkRow {
  readonly pod: string;
  readonly request: string;
  /** The request the SR-IOV request shares a matchAttribute constraint with, and the device it got. */
  readonly pairedRequest: string;
  readonly pairedDevice: string;
  readonly pairedRoot: string;
  readonly vfDevice: string;
  readonly vfPci: string;
  readonly vfRoot: string;
  readonly shadow: string;
  readonly rail: string;
  readonly interface: string;
  /** The address the Multus network-status reports for the interface. */
  readonly ip: string;
  /** The addresses the interface carries in the sandbox. */
  readonly sandboxIps: readonly string[];
}

interface Result {
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
}

interface ClaimObject extends KubeObject {
  readonly spec: { readonly devices?: { readonly constraints?: readonly { readonly requests?: readonly string[]; readonly matchAttribute?: string }[] } };
  readonly status?: { readonly allocation?: { readonly devices?: { readonly results?: readonly Result[] } } };
}

interface SliceObject extends KubeObject {
  readonly spec: {
    readonly driver: string;
    readonly pool: { readonly name: string };
    readonly devices?: readonly { readonly name: string; readonly attributes?: Readonly<Record<string, { readonly string?: string }>> }[];
  };
}

interface PodObject extends KubeObject {
  readonly status?: { readonly resourceClaimStatuses?: readonly { readonly resourceClaimName?: string }[] };
}

/** A published attribute by its qualified name; a driver may publish its own domain's unqualified. */
function attribute(slices: readonly SliceObject[], result: Result, name: string): string {
  const slice = slices.find((candidate) => candidate.spec.driver === result.driver && candidate.spec.pool.name === result.pool);
  const attributes = slice?.spec.devices?.find((device) => device.name === result.device)?.attributes ?? {};
  const own = name.startsWith(`${result.driver}/`) ? name.slice(result.driver.length + 1) : undefined;
  return attributes[name]?.string ?? (own === undefined ? undefined : attributes[own]?.string) ?? '';
}

/** IPv4 addresses per interface in a network namespace. */
function sandboxAddresses(netns: string): Map<string, string[]> {
  const links = JSON.parse(execFileSync('ip', ['-n', netns, '-j', '-4', 'addr', 'show'], { encoding: 'utf8' })) as {
    ifname: string;
    addr_info: { local: string }[];
  }[];
  return new Map(links.map((link) => [link.ifname, link.addr_info.map((info) => info.local)]));
}

/**
 * The rows of `pod`. The sandbox's addresses come from its network namespace (a name `ip -n` takes), or,
 * on a real node where the runtime owns the namespace, from what the container itself reports.
 */
export async function podNetworkRows(
  client: KubeClient,
  pod: { readonly namespace: string; readonly name: string },
  sandbox: string | ReadonlyMap<string, readonly string[]> | undefined,
): Promise<PodNetworkRow[]> {
  const live = await client.get<PodObject>(resourceTypes.pod, pod);
  const slices = (await client.list<SliceObject>(resourceTypes.resourceSlice)).items;
  const registry = parseRegistry(live.metadata.annotations?.[annotations.managedNetworks] ?? '{"version":1,"podUID":"","entries":[]}');
  const entries = registry.ok ? registry.value.entries : [];
  const statuses = JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { name: string; interface?: string; ips?: string[] }[];
  const inSandbox: ReadonlyMap<string, readonly string[]> =
    sandbox === undefined ? new Map() : typeof sandbox === 'string' ? sandboxAddresses(sandbox) : sandbox;
  const rows: PodNetworkRow[] = [];
  for (const claimStatus of live.status?.resourceClaimStatuses ?? []) {
    if (claimStatus.resourceClaimName === undefined) continue;
    const claim = await client.get<ClaimObject>(resourceTypes.resourceClaim, { namespace: pod.namespace, name: claimStatus.resourceClaimName });
    const results = claim.status?.allocation?.devices?.results ?? [];
    for (const result of results.filter((candidate) => candidate.driver === DRIVER_NAME)) {
      const constraint = claim.spec.devices?.constraints?.find(
        (candidate) => candidate.requests?.includes(result.request) === true && candidate.matchAttribute !== undefined,
      );
      const pairedRequest = constraint?.requests?.find((request) => request !== result.request) ?? '';
      const paired = results.find((candidate) => candidate.request === pairedRequest);
      const vfPci = attribute(slices, result, `${DRIVER_NAME}/pciAddress`);
      // The shadow whose binding names this VF, among the Pod's registered entries of this claim.
      let shadow = '';
      let rail = '';
      let ifName = '';
      for (const entry of entries.filter((candidate) => candidate.claimUID === claim.metadata.uid)) {
        const nad = await client.get(resourceTypes.networkAttachmentDefinition, { namespace: entry.namespace, name: entry.name });
        const binding = parseBindingAnnotation(nad.metadata.annotations?.[annotations.binding] ?? '');
        if (binding.ok && binding.value.pciAddress === vfPci) {
          shadow = entry.name;
          rail = `${binding.value.source.namespace}/${binding.value.source.name}`;
          ifName = entry.interface;
        }
      }
      const status = statuses.find((candidate) => candidate.name === `${pod.namespace}/${shadow}`);
      rows.push({
        pod: `${pod.namespace}/${pod.name}`,
        request: result.request,
        pairedRequest,
        pairedDevice: paired === undefined ? '' : `${paired.driver}/${paired.device}`,
        pairedRoot: paired === undefined ? '' : attribute(slices, paired, 'resource.kubernetes.io/pcieRoot'),
        vfDevice: result.device,
        vfPci,
        vfRoot: attribute(slices, result, 'resource.kubernetes.io/pcieRoot'),
        shadow,
        rail,
        interface: status?.interface ?? '',
        ip: status?.ips?.[0] ?? '',
        sandboxIps: inSandbox.get(ifName) ?? [],
      });
    }
  }
  return rows.sort((a, b) => a.request.localeCompare(b.request));
}

/** The rows as an aligned text table, the demo's output. */
export function formatRows(rows: readonly PodNetworkRow[]): string {
  const header = ['POD', 'REQUEST', 'GPU', 'GPU ROOT', 'VF PCI', 'VF ROOT', 'SHADOW', 'INTERFACE', 'IP', 'RAIL'];
  const cells = rows.map((row) => [
    row.pod,
    `${row.request}+${row.pairedRequest}`,
    row.pairedDevice,
    row.pairedRoot,
    row.vfPci,
    row.vfRoot,
    row.shadow,
    row.interface,
    row.ip,
    row.rail,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] ?? '').length)));
  return [header, ...cells]
    .map((line) =>
      line
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
