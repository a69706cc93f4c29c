import preset from '../jest.preset.js';

// Each spec starts a whole stack (control plane, three services, a node): one at a time. The real-node
// specs (kubelet + containerd on this machine, root, images built by tools/images/build-images.sh) run
// when E2E_NODE=real asks for them; .ci/run does where the machine supports them and says so.
const realNode = process.env.E2E_NODE === 'real';
export default {
  ...preset,
  displayName: 'e2e',
  maxWorkers: 1,
  testPathIgnorePatterns: ['/node_modules/', ...(realNode ? [] : ['/test/real-node/'])],
};
