// The daemon-config.json keys upstream's daemon acts on and this one does not: perNodeCertificate (upstream's
// bootstrapped per-node API credentials) stops the start; the log keys and retryDeleteOnError are accepted,
// as their effect is covered otherwise, and each is named in a warning at start.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { type ControlPlane, startControlPlane } from '@sriov-dra/k8s/testing';
import { startDaemon } from '../../src/daemon.ts';
import { DaemonConfigError } from '../../src/daemon-config.ts';
import { writeFixtureDaemonConfig } from '../daemon/daemon-fixture.ts';
import { NODE, type NodeFixture, createNodeFixture, removeNodeFixture } from '../pipeline/node-fixture.ts';

let cp: ControlPlane;
let node: NodeFixture;

beforeAll(async () => {
  cp = await startControlPlane();
  node = await createNodeFixture();
}, 120_000);

afterAll(async () => {
  await cp.stop();
  await removeNodeFixture(node);
});

/** Starts (and stops) a daemon on these extra keys; what it logged at warn and above, or why it did not start. */
async function start(name: string, keys: Record<string, unknown>): Promise<{ config: string; warnings: string[]; failure?: unknown }> {
  const { config } = await writeFixtureDaemonConfig(node, { dir: `${node.root}/${name}`, config: keys });
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  try {
    const daemon = await startDaemon({ config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 }, { logger });
    await daemon.stop();
  } catch (failure) {
    return { config, warnings: [], failure };
  }
  const warnings = lines.map((line) => JSON.parse(line) as { key?: string; msg: string }).filter((entry) => entry.key !== undefined);
  return { config, warnings: warnings.map((entry) => entry.msg) };
}

describe('daemon-config.json keys upstream acts on', () => {
  it('perNodeCertificate enabled stops the start; disabled it changes nothing and starts', async () => {
    const enabled = await start('cert-on', { perNodeCertificate: { enabled: true, bootstrapKubeconfig: '/var/lib/kubelet/kubeconfig', certDir: '/tmp' } });
    expect(enabled.failure).toBeInstanceOf(DaemonConfigError);
    expect((enabled.failure as Error).message).toContain(
      `UnsupportedDaemonConfigKey: ${enabled.config} key "perNodeCertificate": per-node certificates are not supported: the daemon reaches the API server with its --kubeconfig or in-cluster service account`,
    );
    const disabled = await start('cert-off', { perNodeCertificate: { enabled: false } });
    expect(disabled).toEqual({ config: disabled.config, warnings: [] });
  });

  it('logFile, logLevel, logToStderr, logOptions and retryDeleteOnError start the daemon with a warning naming each', async () => {
    const started = await start('ignored', {
      logFile: '/var/log/multus.log',
      logLevel: 'debug',
      logToStderr: true,
      logOptions: { maxAge: 5 },
      retryDeleteOnError: true,
    });
    expect(started.failure).toBeUndefined();
    expect(started.warnings).toEqual([
      'daemon-config.json key logFile is not acted on: configures the shim’s log (written into the generated entry configuration); the daemon itself logs JSON to stdout',
      'daemon-config.json key logLevel is not acted on: configures the shim’s log (written into the generated entry configuration); the daemon itself logs JSON to stdout at its --log-level (LOG_LEVEL)',
      'daemon-config.json key logToStderr is not acted on: configures the shim’s log (written into the generated entry configuration); the daemon itself logs JSON to stdout',
      'daemon-config.json key logOptions is not acted on: configures the shim’s log (written into the generated entry configuration); the daemon itself logs JSON to stdout',
      'daemon-config.json key retryDeleteOnError is not acted on: DEL keeps the delegate cache until every delegate is deleted, whatever the value',
    ]);
  });
});
