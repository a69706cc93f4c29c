import preset from '../jest.preset.js';

export default { ...preset, displayName: 'tools', testMatch: ['<rootDir>/**/*.spec.ts'] };
