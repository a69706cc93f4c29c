export * from './binaries.ts';
export * from './chart.ts';
export * from './control-plane.ts';
export * from './crds.ts';
export { writeKubeconfig } from './kubeconfig.ts';
export * from './namespaces.ts';
export { freePort, isProcessAlive, waitFor } from './processes.ts';
export * from './ready-node.ts';
export * from './tcp-proxy.ts';
