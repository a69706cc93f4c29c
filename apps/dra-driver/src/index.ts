export * from './config/opaque-vf-config.ts';
export * from './policy/device-attribute-merge.ts';
export * from './managed/shadow-plan.ts';
