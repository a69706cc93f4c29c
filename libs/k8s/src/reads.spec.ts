import { describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import type { ClientConfig } from './client-config.ts';
import { KubeClient, type KubeObject } from './client.ts';
import { readPod } from './reads.ts';

/** Never used to connect: every GET is answered in memory. */
const unused: ClientConfig = {
  origin: 'test',
  context: 'c',
  clusterName: 'c',
  userName: '',
  server: new URL('https://127.0.0.1:1'),
  namespace: undefined,
  tls: { rejectUnauthorized: true },
  credentials: undefined,
};

/** Answers every GET with a fixed body: a pure test of response validation. */
class CannedClient extends KubeClient {
  private readonly body: unknown;
  constructor(body: unknown) {
    super(unused);
    this.body = body;
  }
  override get<T extends KubeObject>(): Promise<T> {
    return Promise.resolve(this.body as T);
  }
}

describe('typed reads', () => {
  it('keeps fields it does not model', async () => {
    const pod = await readPod(
      new CannedClient({ metadata: { name: 'p', namespace: 'n', uid: 'u', resourceVersion: '1' }, spec: { nodeName: 'w', future: 1 }, extra: true }),
      'n',
      'p',
    );
    expect(pod).toMatchObject({ spec: { nodeName: 'w', future: 1 }, extra: true });
  });

  it.each([
    ['no metadata', { spec: {} }],
    ['no uid', { metadata: { name: 'p', resourceVersion: '1' }, spec: {} }],
    ['annotations that are not strings', { metadata: { name: 'p', uid: 'u', resourceVersion: '1', annotations: { a: 1 } }, spec: {} }],
    ['a null body', null],
  ])('rejects a response with %s as InvalidApiObject', async (_case, body) => {
    const error = await readPod(new CannedClient(body), 'n', 'p').catch((caught: unknown) => caught);
    expect(isSriovDraError(error, 'InvalidApiObject')).toBe(true);
  });
});
