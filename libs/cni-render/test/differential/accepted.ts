// The one place that lists inputs our code may reject although the real Go code accepts them. Every
// other disagreement in that direction is reported as a divergence. An entry needs a reason; for a
// parser (the networks annotation) the only acceptable reason is that Multus fails the ADD later anyway,
// and the Go peer reports that fact itself (failsLater), so the entry is checked, not assumed.
import { METAPLUGIN_ALLOWLIST } from '@sriov-dra/contract';
import { SUPPORTED_CNI_VERSIONS } from '../../src/shadow-config.ts';
import type { DiffCase } from './compare.ts';
import type { GoAnswer } from '../../src/testing/index.ts';

export interface RejectedByUs {
  readonly input: DiffCase;
  readonly tsCode: string;
  readonly tsMessage: string;
  /** The Go answer for the input (for a render: for the source configuration). */
  readonly go: GoAnswer;
}

export interface AcceptedDivergence {
  readonly id: string;
  readonly kind: DiffCase['kind'];
  readonly reason: string;
  readonly applies: (rejected: RejectedByUs) => boolean;
}

const code =
  (...codes: string[]) =>
  (rejected: RejectedByUs): boolean =>
    codes.includes(rejected.tsCode);

export const ACCEPTED_DIVERGENCES: readonly AcceptedDivergence[] = [
  {
    id: 'selection-fails-later',
    kind: 'selections',
    reason:
      'Multus parses the entry but fails the ADD later: no NAD can have that name or namespace (the API server validates both, and client-go refuses an empty name), or libcni ValidateInterfaceName refuses the interface',
    applies: (rejected) => rejected.go.selections?.networks.some((network) => network.failsLater.length > 0) === true,
  },
  // Render rejections by policy: Multus would run these configurations, the driver refuses to render
  // them by design. Each names the specification clause that asks for the rejection.
  {
    id: 'policy-topology',
    kind: 'cni',
    reason: '§7 steps 4–6: one sriov plugin, alone or first, followed only by allowlisted metaplugins; no ambiguous root with both type and plugins',
    applies: (rejected) => rejected.tsCode === 'UnsupportedCniTopology' || goTopologyUnsupported(rejected.go),
  },
  {
    id: 'policy-cni-version',
    kind: 'cni',
    reason: '§7 step 8: only CNI versions of the supported libcni/plugin combination (an absent cniVersion means 0.1.0)',
    applies: (rejected) => rejected.tsCode === 'UnsupportedCniVersion' || goVersionUnsupported(rejected.go),
  },
  {
    id: 'policy-device-id',
    kind: 'cni',
    reason: '§7 step 7: a preexisting deviceID/pciBusID that differs from the allocation, or one on a metaplugin',
    applies: code('ConflictingDeviceID'),
  },
  { id: 'policy-node-slices', kind: 'cni', reason: '§7.1: whereabouts fast node slices are outside the initial mode', applies: code('UnsupportedIpamMode') },
  {
    id: 'allocated-pci',
    kind: 'cni',
    reason: 'the allocated PCI address comes from trusted discovery, not from the NAD; the Go decode of the NAD has nothing to compare',
    applies: code('InvalidPciAddress'),
  },
  {
    id: 'policy-duplicate-keys',
    kind: 'cni',
    reason: '§7 step 2: duplicate keys make the meaning depend on which one a consumer picks; Go silently takes the last',
    applies: code('DuplicateCniKey'),
  },
  {
    id: 'policy-key-spelling',
    kind: 'cni',
    reason:
      '§7 step 2: a field spelled other than exactly (CNIVersion, Ipam, pluginſ) is read by Go structs but not by libcni’s exact-key conflist reader nor by the renderer, so readers would disagree on it',
    applies: code('MisspelledCniKey'),
  },
  {
    id: 'policy-selection-duplicate-keys',
    kind: 'selections',
    reason:
      '§9 rule 1: an entry with two keys for one field (exactly or by Go’s case folding) means what the last one says to Go; the driver refuses to rewrite an annotation whose meaning depends on the reader',
    applies: (rejected) => /duplicate key|one field to Multus/.test(rejected.tsMessage),
  },
  {
    id: 'policy-interface-unicode-space',
    kind: 'selections',
    reason:
      'the contract’s interface-name rule refuses Unicode whitespace such as U+FEFF, which Go’s TrimSpace keeps and the kernel would accept: names that tools around CNI trim or split differently are not written',
    applies: (rejected) => /interface .* is not a valid interface name/.test(rejected.tsMessage) && /\s/u.test(interfaceOf(rejected.tsMessage)),
  },
];

/** The quoted interface name in a rejection message. */
function interfaceOf(message: string): string {
  const match = /interface ("(?:[^"\\]|\\.)*")/.exec(message);
  return match?.[1] === undefined ? '' : (JSON.parse(match[1]) as string);
}

/** Go's own reading shows a CNI version outside the supported combination. */
function goVersionUnsupported(go: GoAnswer): boolean {
  const cni = go.cni;
  return cni !== undefined && [cni.cniVersion, ...cni.plugins.map((plugin) => plugin.cniVersion)].some((version) => !SUPPORTED_CNI_VERSIONS.includes(version));
}

/** Go's own reading runs something other than sriov followed by allowlisted metaplugins. */
function goTopologyUnsupported(go: GoAnswer): boolean {
  const types = go.cni?.plugins.map((plugin) => plugin.type);
  if (types === undefined) return false;
  const [first, ...rest] = types;
  return first !== 'sriov' || rest.some((type) => !METAPLUGIN_ALLOWLIST.includes(type));
}

export function acceptedDivergenceFor(rejected: RejectedByUs): AcceptedDivergence | undefined {
  return ACCEPTED_DIVERGENCES.find((entry) => entry.kind === rejected.input.kind && entry.applies(rejected));
}
