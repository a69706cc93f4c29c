export * from './config/opaque-vf-config.ts';
export * from './policy/device-attribute-merge.ts';
export * from './managed/shadow-plan.ts';
export { nodeShadowSelector } from './managed/orphan-scan.ts';
