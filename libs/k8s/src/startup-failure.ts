import { type LogLevel, logsStacks } from './log-level.ts';

/** The part of a pino logger a failed start uses. */
export interface FatalLogger {
  fatal(fields: object, message: string): void;
}

function hasStableCode(error: unknown): error is Error & { readonly code: string } {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && error.message.startsWith(`${error.code}: `);
}

/**
 * The one line a service prints when it cannot start. A typed error's message already reads
 * `<code>: <flag or file>: <detail> — <what to do>`; anything else is unexpected, so the line says how
 * to see its stack.
 */
export function startupFailureLine(component: string, error: unknown): string {
  const text = hasStableCode(error)
    ? error.message
    : `${component} failed to start: ${error instanceof Error ? error.message : String(error)} — run with --log-level debug for the stack trace`;
  return text.replaceAll(/\s*\n\s*/g, ' ');
}

/**
 * Ends a service that failed to start: the failure as one line on stderr, exit status 1. At debug and
 * trace the log also gets the error with its stack and causes; at other levels a stack only buries
 * the line that says what to fix.
 */
export function exitOnStartupFailure(component: string, error: unknown, logger: FatalLogger, level: LogLevel): never {
  if (logsStacks(level)) logger.fatal({ err: error }, `${component} failed to start`);
  process.stderr.write(`${startupFailureLine(component, error)}\n`);
  process.exit(1);
}
