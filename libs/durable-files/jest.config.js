import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'durable-files' };
