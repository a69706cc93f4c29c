import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (ARCHITECTURE.md): apps never import each other; a lib never imports an app; shared
 * libs import only shared libs. Every project carries one type:* and one scope:* tag. The e2e project is
 * the one consumer allowed to import everything, apps included, so the rule is off there.
 */
const depConstraints = [
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'scope:driver', onlyDependOnLibsWithTags: ['scope:shared', 'scope:driver'] },
  { sourceTag: 'scope:multus', onlyDependOnLibsWithTags: ['scope:shared', 'scope:multus'] },
  { sourceTag: 'scope:operator', onlyDependOnLibsWithTags: ['scope:shared', 'scope:operator'] },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', '**/coverage/**'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...tseslint.configs.strictTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'tools/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Results are matched on `ok`; a non-exhaustive switch on a union is caught by the compiler.
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  {
    files: ['e2e/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // App tests and benchmarks run against the simulated SR-IOV hardware in tools/fake-sysfs; production code never does.
    files: ['apps/*/src/**/*.spec.ts', 'apps/*/test/**/*.ts', 'apps/*/bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: ['^(\\.\\./)+tools/fake-sysfs/[a-z-]+\\.ts$'], depConstraints },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
