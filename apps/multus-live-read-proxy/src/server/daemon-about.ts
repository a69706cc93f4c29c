import { z } from 'zod';

/**
 * What the running daemon says about itself on its socket: the build it runs and the daemon-config.json
 * settings it started with. Preflight (§4.3) asks the daemon instead of trusting an image tag or the file
 * on disk, which may have changed since the daemon read it. The upstream multus-shim only ever calls /cni
 * and /healthz (multus-cni v4.2.3 pkg/server/api), so this path is free; it is ours, not the shim's wire.
 */
export const VERSION_ENDPOINT = '/version';

export const daemonAboutSchema = z.object({
  build: z.object({
    /** The package version. */
    version: z.string(),
    /** The source commit; null when neither the build nor git said. */
    commit: z.string().nullable(),
  }),
  /** The daemon-config.json the daemon was started with, as it read it then. */
  config: z.object({
    path: z.string(),
    liveNetworkConfigOnAdd: z.boolean(),
    /** '' when delegates run in the daemon's own root. */
    chrootDir: z.string(),
    /** '' when unset: each request's own cniDir, else upstream's default, applies. */
    cniDir: z.string(),
  }),
});

export type DaemonAbout = z.infer<typeof daemonAboutSchema>;
