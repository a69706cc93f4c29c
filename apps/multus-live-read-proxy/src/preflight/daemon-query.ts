import { request } from 'node:http';
import { errorMessage } from '@sriov-dra/k8s';
import { type DaemonAbout, VERSION_ENDPOINT, daemonAboutSchema } from '../server/daemon-about.ts';

/** A daemon that does not answer within this is as good as not running, for preflight. */
const QUERY_TIMEOUT_MS = 5_000;

/** The answer to GET /version is a few hundred bytes; anything far larger is not our daemon. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Asks the daemon serving `socketPath` which build and settings it runs (GET /version). */
export function queryDaemon(socketPath: string): Promise<{ ok: true; about: DaemonAbout } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const call = request({ socketPath, path: VERSION_ENDPOINT, method: 'GET', timeout: QUERY_TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) response.destroy(new Error(`the answer exceeds ${String(MAX_ANSWER_BYTES)} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', (error) => {
        resolve({ ok: false, error: errorMessage(error) });
      });
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) {
          // An upstream multus-daemon, or a build of this one without the endpoint, answers 404.
          resolve({ ok: false, error: `GET ${VERSION_ENDPOINT} answered ${String(response.statusCode)}: not a daemon of this build` });
          return;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          resolve({ ok: false, error: `GET ${VERSION_ENDPOINT} answered something other than JSON` });
          return;
        }
        const about = daemonAboutSchema.safeParse(parsed);
        resolve(about.success ? { ok: true, about: about.data } : { ok: false, error: `GET ${VERSION_ENDPOINT} answered an unexpected document` });
      });
    });
    call.on('timeout', () => {
      call.destroy(new Error(`no answer within ${String(QUERY_TIMEOUT_MS / 1000)} s`));
    });
    call.on('error', (error) => {
      resolve({ ok: false, error: errorMessage(error) });
    });
    call.end();
  });
}
