import { z } from 'zod';
import { CniInvocationError, CniPluginError } from './cni-error.ts';
import { type CniResult, parseResult } from './result-version.ts';

export type CniCommand = 'ADD' | 'CHECK' | 'DEL' | 'STATUS' | 'GC';

/** How a plugin process ended, as the exec layer observed it. */
export interface PluginExit {
  /** The exit status, or null when a signal ended the process. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PluginOutputContext {
  readonly command: CniCommand;
  readonly network: string;
  readonly pluginType: string;
  /** The cniVersion the plugin was given; a result without one is read as this version (libcni's fixup). */
  readonly configVersion: string;
}

// Go decodes the error into types.Error{Code uint, Msg, Details string}; absent fields stay zero.
const cniErrorSchema = z.object({ code: z.int().nonnegative().nullish(), msg: z.string().nullish(), details: z.string().nullish() });

function exitText(exit: PluginExit): string {
  return exit.signal === null ? `exit status ${exit.code}` : `signal: ${exit.signal}`;
}

function parseJson(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function failure(exit: PluginExit, context: PluginOutputContext): Error {
  const subject = { network: context.network, pluginType: context.pluginType };
  if (exit.stdout.trim() === '') {
    const detail = exit.stderr === '' ? `netplugin failed with no error message: ${exitText(exit)}` : `netplugin failed: ${JSON.stringify(exit.stderr)}`;
    return new CniInvocationError('PluginFailedWithoutError', subject, `${context.command}: ${detail}`);
  }
  const parsed = parseJson(exit.stdout);
  const checked = parsed.ok && isPlainObject(parsed.value) ? cniErrorSchema.safeParse(parsed.value) : undefined;
  if (checked === undefined || !checked.success) {
    const problem = !parsed.ok ? parsed.problem : checked === undefined ? 'not a JSON object' : (checked.error.issues[0]?.message ?? 'invalid');
    return new CniInvocationError(
      'InvalidPluginOutput',
      subject,
      `${context.command}: netplugin failed (${exitText(exit)}) but error parsing its diagnostic message ${JSON.stringify(exit.stdout)}: ${problem}`,
    );
  }
  return new CniPluginError(subject, context.command, { code: checked.data.code ?? 0, msg: checked.data.msg ?? '', details: checked.data.details ?? '' });
}

/**
 * Reads a finished plugin the way libcni does: a non-zero exit is an error (the CNI error object on
 * stdout, else stderr); a successful ADD must print a result of a supported version, which is returned
 * in its canonical form; the output of every other command is ignored. Returns the error instead of throwing it.
 */
export function readPluginOutput(
  exit: PluginExit,
  context: PluginOutputContext,
): { readonly ok: true; readonly result: CniResult | undefined } | { readonly ok: false; readonly error: Error } {
  if (exit.code !== 0 || exit.signal !== null) return { ok: false, error: failure(exit, context) };
  if (context.command !== 'ADD') return { ok: true, result: undefined };
  const subject = { network: context.network, pluginType: context.pluginType };
  const parsed = parseJson(exit.stdout);
  if (!parsed.ok) {
    const what = exit.stdout.trim() === '' ? 'exited successfully without printing a result' : `printed a result that is not JSON (${parsed.problem})`;
    return { ok: false, error: new CniInvocationError('InvalidPluginOutput', subject, `ADD: the plugin ${what}`) };
  }
  // libcni reads `null` as an empty object and gives a result without a cniVersion the configuration's.
  const raw = parsed.value === null ? {} : parsed.value;
  if (!isPlainObject(raw))
    return { ok: false, error: new CniInvocationError('InvalidPluginOutput', subject, 'ADD: the plugin printed JSON that is not a result object') };
  const version = raw['cniVersion'];
  const withVersion = typeof version === 'string' && version !== '' ? raw : { ...raw, cniVersion: context.configVersion };
  const result = parseResult(withVersion);
  if (!result.ok) return { ok: false, error: new CniInvocationError('InvalidPluginOutput', subject, `ADD: ${result.problem}`) };
  return { ok: true, result: result.result };
}
