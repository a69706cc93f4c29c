// The workspace runs on the Node.js it pins (devDependency "node"); tests also spawn TypeScript files,
// which only Node.js >= 24 runs natively. Fail fast with the fix instead of with obscure errors.
export default function assertNodeVersion() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 24) {
    throw new Error(
      `Node.js ${process.versions.node} is running the tests; run them through npm (npm test / npx nx …) so the pinned Node.js 24 from node_modules/.bin is used.`,
    );
  }
}
