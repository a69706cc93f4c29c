// Writes src/crds/upstream-owned-crds.ts from crds/*.yaml:
//   node --conditions=@sriov-dra/source apps/node-policy-operator/test/crds/write-upstream-owned-crds.ts && npx prettier --write apps/node-policy-operator/src/crds/upstream-owned-crds.ts
// upstream-owned-crds.spec.ts fails while the two differ.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { upstreamOwnedCrdSources } from './crd-sources.ts';

const target = fileURLToPath(new URL('../../src/crds/upstream-owned-crds.ts', import.meta.url));
writeFileSync(
  target,
  `// The CRDs other projects own, in the form this project needs them (apps/node-policy-operator/crds/*.yaml,
// where each file says why it differs from upstream's), as data: \`crds apply\` runs from the operator's image,
// where the repository is not. Written by test/crds/write-upstream-owned-crds.ts; upstream-owned-crds.spec.ts
// fails while it and the YAML differ.
import type { CrdManifest } from './crd-manifest.ts';

export const UPSTREAM_OWNED_CRDS: readonly CrdManifest[] = ${JSON.stringify(upstreamOwnedCrdSources(), null, 2)};
`,
);
