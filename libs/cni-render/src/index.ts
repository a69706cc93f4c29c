export * from './cni-name.ts';
export * from './pci-address.ts';
export * from './shadow-config.ts';
export * from './strict-json.ts';
