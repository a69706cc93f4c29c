// Shared Jest settings: native ESM (run with --experimental-vm-modules) transformed by SWC, resolving
// workspace packages to their TypeScript sources through the @sriov-dra/source export condition.
import { fileURLToPath } from 'node:url';

export default {
  globalSetup: fileURLToPath(new URL('./tools/jest-node-version.js', import.meta.url)),
  setupFiles: [fileURLToPath(new URL('./tools/jest-property-seed.js', import.meta.url))],
  testEnvironment: 'node',
  // Jest's 5 s default suits pure unit tests; most suites here start API servers, daemons and plugins, which a
  // loaded machine (CI runs three projects and a real node at once) can slow past it with correct code. This
  // only bounds a hang: a test with its own timeout keeps it.
  testTimeout: 60_000,
  testEnvironmentOptions: { customExportConditions: ['@sriov-dra/source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2024' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
