// Generated message codecs, grpc-js service definitions, server interfaces and clients, one namespace
// per kubelet API version. Regenerate with `npm run proto`; never edit src/gen by hand.
export * as draV1 from './gen/dra/v1/api.ts';
export * as draV1beta1 from './gen/dra/v1beta1/api.ts';
export * as draHealthV1alpha1 from './gen/dra-health/v1alpha1/api.ts';
export * as registrationV1 from './gen/pluginregistration/v1/api.ts';
export * as podResourcesV1 from './gen/podresources/v1/api.ts';
export * as devicePluginV1beta1 from './gen/deviceplugin/v1beta1/api.ts';
export * from './services.ts';
export * from './unix-socket-server.ts';
