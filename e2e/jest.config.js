import preset from '../jest.preset.js';

// Each spec starts a whole stack (control plane, three services, a simulated node): one at a time.
export default { ...preset, displayName: 'e2e', maxWorkers: 1 };
