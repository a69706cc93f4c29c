export * from './dra/generated-labels.ts';
export * from './dra/policy-device-attributes.ts';
