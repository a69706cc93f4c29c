export * from './cni-name.ts';
export * from './pci-address.ts';
export * from './shadow-config.ts';
export * from './shadow-nad.ts';
export * from './selections/parse.ts';
export * from './selections/serialize.ts';
export * from './selections/merge.ts';
export * from './interface-names.ts';
