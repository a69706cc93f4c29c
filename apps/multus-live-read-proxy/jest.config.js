import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'multus-live-read-proxy' };
