export { type Daemon, type DaemonOptions, startDaemon } from './daemon.ts';
export { type DaemonFlags, parseDaemonFlags } from './daemon-flags.ts';
export * from './guard/pod-registry.ts';
export * from './guard/shadow-binding.ts';
export * from './guard/shadow-config.ts';
export * from './guard/managed-shadow-guard.ts';
