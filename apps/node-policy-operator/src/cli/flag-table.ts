import { parseArgs } from 'node:util';
import { type Result, fail, ok } from '@sriov-dra/contract';

/** One flag of a subcommand: its environment variable, default and help line. */
export interface FlagSpec {
  readonly env: string;
  readonly fallback?: string;
  readonly help: string;
}

export function flagUsage(flags: Readonly<Record<string, FlagSpec>>): string {
  return Object.entries(flags)
    .map(([name, spec]) => `  --${name} (env ${spec.env})${spec.fallback === undefined ? '' : ` [default ${spec.fallback}]`}\n      ${spec.help}`)
    .join('\n');
}

export function flagError(flag: string, detail: string): Result<never> {
  return fail('InvalidComponentSetting', detail, { object: { kind: 'Flag', name: `--${flag}` } });
}

/**
 * Reads a subcommand's string flags: a flag beats its environment variable, which beats the default; an
 * empty value counts as unset. Unknown flags and positionals are refused, naming `--help`.
 */
export function readFlagTable<F extends string>(
  flags: Readonly<Record<F, FlagSpec>>,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  command: string,
): Result<(flag: F) => string | undefined> {
  let values: Partial<Record<F, string>>;
  try {
    values = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.keys(flags).map((name) => [name, { type: 'string' }])) as Record<F, { type: 'string' }>,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    return fail('InvalidComponentSetting', message, { remedy: `run ${command} --help for the flags` });
  }
  return ok((flag: F) => {
    const spec: FlagSpec = flags[flag];
    const given = values[flag] ?? env[spec.env];
    return given === undefined || given === '' ? spec.fallback : given;
  });
}
