// The client side of tools/kubelet-peer: one Go process per test, requests as JSON lines, answers in
// order. The binary is built by `tools/control-plane/build-binaries.sh kubelet-peer` into the shared
// cache outside the repository, and refused when its stamp does not match the sources here.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { rebuildHint, stampedGoPeer } from './stamped-go-peer.ts';

const REBUILD = rebuildHint('kubelet-peer');

/** Versions the peer's answers stand for; a binary built from other pins is refused. */
export const EXPECTED_MODULES: Readonly<Record<string, string>> = { 'k8s.io/kubernetes': 'v1.36.3', 'k8s.io/kubelet': 'v0.36.3' };

export interface PeerClaim {
  readonly namespace: string;
  readonly uid: string;
  readonly name: string;
}

export type PeerRequest =
  | { readonly op: 'hello' }
  | { readonly op: 'info'; readonly socket: string }
  | { readonly op: 'register'; readonly socket: string; readonly services?: readonly string[]; readonly withoutHandler?: boolean }
  | { readonly op: 'prepare' | 'unprepare'; readonly claims: readonly PeerClaim[] }
  | { readonly op: 'health'; readonly timeoutMs?: number };

export interface PeerAnswer {
  readonly id: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly code?: string;
  readonly result?: unknown;
}

export class KubeletPeer {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting: { resolve: (answer: PeerAnswer) => void; reject: (error: Error) => void }[] = [];
  #nextId = 1;
  #buffered = '';
  #stderr = '';

  private constructor(binary: string) {
    this.#child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stdout.setEncoding('utf8');
    this.#child.stdout.on('data', (chunk: string) => {
      this.#receive(chunk);
    });
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    this.#child.on('exit', (code, signal) => {
      for (const waiter of this.#waiting.splice(0)) waiter.reject(new Error(`kubelet-peer exited (${signal ?? code}): ${this.#stderr}`));
    });
  }

  static async start(): Promise<KubeletPeer> {
    const peer = new KubeletPeer(stampedGoPeer('kubelet-peer', 'kubelet-peer'));
    const versions = (await peer.send({ op: 'hello' })).result as Record<string, string>;
    for (const [module, version] of Object.entries(EXPECTED_MODULES)) {
      if (versions[module] !== version) {
        await peer.close();
        throw new Error(`kubelet-peer is built with ${module} ${versions[module] ?? 'missing'}, expected ${version}: ${REBUILD}`);
      }
    }
    return peer;
  }

  /** The kubelet's log lines (klog on stderr), for failure messages. */
  get log(): string {
    return this.#stderr;
  }

  send(request: PeerRequest): Promise<PeerAnswer> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) =>
      this.#child.once('exit', () => {
        resolve();
      }),
    );
    this.#child.stdin.end();
    await exited;
  }

  #receive(chunk: string): void {
    this.#buffered += chunk;
    let newline: number;
    while ((newline = this.#buffered.indexOf('\n')) >= 0) {
      const line = this.#buffered.slice(0, newline);
      this.#buffered = this.#buffered.slice(newline + 1);
      this.#waiting.shift()?.resolve(JSON.parse(line) as PeerAnswer);
    }
  }
}
