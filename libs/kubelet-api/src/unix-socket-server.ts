import { type Server, ServerCredentials } from '@grpc/grpc-js';

/** Serves `server` on a Unix socket at `path`, as every kubelet plugin socket is served (no TLS: file permissions guard it). */
export function bindUnixSocket(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`unix:${path}`, ServerCredentials.createInsecure(), (error) => {
      if (error === null) resolve();
      else reject(error);
    });
  });
}

/** Lets calls in flight finish for up to `graceMs`, then cuts the rest: a stop never waits on a client that hangs. */
export function shutdownServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
