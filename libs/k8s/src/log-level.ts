/** The pino levels a service's --log-level (LOG_LEVEL) accepts, most verbose first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/** Levels at which a failure is logged with its stack and causes, for whoever debugs the service. */
export function logsStacks(level: LogLevel): boolean {
  return level === 'trace' || level === 'debug';
}
