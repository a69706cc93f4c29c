// Client of tools/multus-peer/delegate-runner: the same delegates run through libcni as the upstream Multus
// daemon runs them, timed inside the Go process. Upstream's overhead is its ADD time less this, just as
// ours is our ADD time less our own addNetwork's: each daemon is charged for what it adds around its
// delegates, not for how fast the other's exec machinery is.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { multusBinaries } from '@sriov-dra/k8s/testing';
import { z } from 'zod';

export interface GoDelegateCall {
  readonly command: 'ADD' | 'DEL';
  readonly containerID: string;
  readonly netns: string;
  readonly args: readonly (readonly [string, string])[];
  readonly binDirs: readonly string[];
  readonly cacheDir: string;
  /** In ADD order; DEL runs them in reverse. */
  readonly delegates: readonly { readonly config: string; readonly ifName: string }[];
}

const answerSchema = z.object({ elapsedMs: z.number(), error: z.string().optional() });

export class GoDelegateRunner {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #answers: AsyncIterator<string>;
  #stderr = '';

  private constructor() {
    this.#child = spawn(multusBinaries().delegateRunner, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-4096);
    });
    this.#answers = createInterface({ input: this.#child.stdout })[Symbol.asyncIterator]();
  }

  static start(): GoDelegateRunner {
    return new GoDelegateRunner();
  }

  /** Milliseconds libcni spent on the delegates; a delegate's failure is an error, never a figure. */
  async run(call: GoDelegateCall): Promise<number> {
    this.#child.stdin.write(`${JSON.stringify(call)}\n`);
    const line = await this.#answers.next();
    if (line.done === true) throw new Error(`delegate-runner exited: ${this.#stderr}`);
    const answer = answerSchema.parse(JSON.parse(line.value));
    if (answer.error !== undefined) throw new Error(`delegate-runner ${call.command}: ${answer.error}`);
    return answer.elapsedMs;
  }

  stop(): void {
    this.#child.stdin.end();
  }
}
