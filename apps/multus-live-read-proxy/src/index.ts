export * from './guard/pod-registry.ts';
export * from './guard/shadow-binding.ts';
export * from './guard/shadow-config.ts';
