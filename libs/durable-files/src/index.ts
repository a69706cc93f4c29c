export * from './atomic-write.ts';
