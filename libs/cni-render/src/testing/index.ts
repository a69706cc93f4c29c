export * from './go-peer.ts';
