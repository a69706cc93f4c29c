import { type Result, ok } from '@sriov-dra/contract';
import { LOG_LEVELS, type LogLevel, isLogLevel } from '@sriov-dra/k8s';
import { type FlagSpec, flagError } from './flag-table.ts';

/** --log-level of every long-running subcommand; unset means info. */
export const LOG_LEVEL_FLAG = {
  env: 'LOG_LEVEL',
  help: 'level of the JSON log on stdout: trace, debug, info (the default), warn, error or fatal; at debug and trace a failed start also logs its stack',
} as const satisfies FlagSpec;

export function parseLogLevelFlag(text: string | undefined): Result<LogLevel | undefined> {
  if (text === undefined || isLogLevel(text)) return ok(text);
  return flagError('log-level', `${JSON.stringify(text)} is not one of ${LOG_LEVELS.join(', ')}`);
}
