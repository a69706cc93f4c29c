export * from './binaries.ts';
export * from './control-plane.ts';
export * from './crds.ts';
export { freePort, isProcessAlive, waitFor } from './processes.ts';
