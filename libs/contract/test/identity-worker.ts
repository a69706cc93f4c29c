// Computes attachment IDs in a separate Node.js process: reads a JSON array of tuples on stdin and
// writes the JSON array of attachmentIDs on stdout.
import { buildBindingIdentity } from '../src/identity.ts';
import type { BindingIdentityTuple } from '../src/identity.ts';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const tuples = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BindingIdentityTuple[];
const ids = tuples.map((tuple) => {
  const identity = buildBindingIdentity(tuple);
  return identity.ok ? identity.value.attachmentID : identity.error.code;
});
process.stdout.write(JSON.stringify(ids));
