export * from './dra/generated-labels.ts';
export * from './dra/policy-device-attributes.ts';
export * from './render/source-nad.ts';
export * from './render/source-nad-error.ts';
export * from './render/sriov-network.ts';
