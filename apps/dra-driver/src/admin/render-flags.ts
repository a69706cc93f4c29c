import { parseArgs } from 'node:util';
import { type Result, ok } from '@sriov-dra/contract';
import { commandLineError } from './cli-failure.ts';

/** The subcommand's name on the `sriov-dra` command line. */
export const RENDER_COMMAND = 'render';

/**
 * What a shadow's identity and provenance are computed from (§6.2, §6.4): the tuple's UIDs, pool and
 * device, plus the names the shadow's binding annotation and owner reference carry.
 */
export interface RenderIdentity {
  readonly nodeName: string;
  readonly nodeUID: string;
  readonly podNamespace: string;
  readonly podName: string;
  readonly podUID: string;
  readonly claimUID: string;
  readonly pool: string;
  readonly device: string;
  readonly interface: string;
}

export interface RenderFlags {
  readonly nadPath: string;
  readonly pci: string;
  /** Null renders the configuration alone. */
  readonly identity: RenderIdentity | null;
}

/** The default name of a Pod's first managed interface (§6.5). */
const DEFAULT_INTERFACE = 'dra0';

const IDENTITY_FLAGS = ['node-name', 'node-uid', 'pod-namespace', 'pod-name', 'pod-uid', 'claim-uid', 'pool', 'device'] as const;

export function renderUsage(): string {
  return `Usage: sriov-dra ${RENDER_COMMAND} --nad FILE --pci BDF [identity flags]

Renders the shadow configuration of a source NetworkAttachmentDefinition for one VF, with the driver's
own rules, without a cluster. Without identity flags it prints the rendered CNI configuration, exactly
the bytes a shadow would carry. With all identity flags it prints the shadow NetworkAttachmentDefinition
as JSON; the manifest must then come from the cluster (metadata.namespace, uid and resourceVersion).

  --nad FILE        the source NAD manifest (YAML or JSON)
  --pci BDF         the VF's PCI address, e.g. 0000:03:00.1

Identity flags, all or none:
  --node-name NAME  --node-uid UID
  --pod-namespace NAMESPACE  --pod-name NAME  --pod-uid UID
  --claim-uid UID   --pool POOL  --device DEVICE
  --interface NAME  [default ${DEFAULT_INTERFACE}]

Exit status: 0 printed; 1 failed: refused by the driver's rules, or the command line or the manifest file
is unusable (one line on stderr: error code, what failed, what to do).
`;
}

function usageError(detail: string): Result<never> {
  return { ok: false, error: commandLineError(RENDER_COMMAND, detail) };
}

export function parseRenderFlags(argv: readonly string[]): Result<RenderFlags> {
  const options = Object.fromEntries([...IDENTITY_FLAGS, 'nad', 'pci', 'interface'].map((name) => [name, { type: 'string' as const }]));
  let values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    return usageError(typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error));
  }
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const nadPath = text('nad');
  const pci = text('pci');
  if (nadPath === undefined || pci === undefined) return usageError('--nad and --pci are required');
  const missing = IDENTITY_FLAGS.filter((name) => text(name) === undefined);
  if (missing.length === IDENTITY_FLAGS.length) {
    if (text('interface') !== undefined) return usageError('--interface needs the identity flags');
    return ok({ nadPath, pci, identity: null });
  }
  if (missing.length > 0) return usageError(`identity flags are all or none; missing ${missing.map((name) => `--${name}`).join(', ')}`);
  const given = (name: (typeof IDENTITY_FLAGS)[number]): string => text(name) ?? '';
  return ok({
    nadPath,
    pci,
    identity: {
      nodeName: given('node-name'),
      nodeUID: given('node-uid'),
      podNamespace: given('pod-namespace'),
      podName: given('pod-name'),
      podUID: given('pod-uid'),
      claimUID: given('claim-uid'),
      pool: given('pool'),
      device: given('device'),
      interface: text('interface') ?? DEFAULT_INTERFACE,
    },
  });
}
