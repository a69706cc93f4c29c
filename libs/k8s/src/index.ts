export * from './api-errors.ts';
export * from './client.ts';
export * from './finalizers.ts';
export * from './guarded-patch.ts';
export * from './json-patch.ts';
export * from './rate-limiter.ts';
export * from './resources.ts';
export * from './retry.ts';
