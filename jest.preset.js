// Shared Jest settings: native ESM (run with --experimental-vm-modules) transformed by SWC, resolving
// workspace packages to their TypeScript sources through the @sriov-dra/source export condition.
import { fileURLToPath } from 'node:url';

export default {
  globalSetup: fileURLToPath(new URL('./tools/jest-node-version.js', import.meta.url)),
  setupFiles: [fileURLToPath(new URL('./tools/jest-property-seed.js', import.meta.url))],
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['@sriov-dra/source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2024' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
