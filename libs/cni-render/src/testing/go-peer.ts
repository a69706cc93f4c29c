// The client side of tools/go-peers: one Go process per run, requests streamed as JSON lines, answers
// matched by id. The binary is built by `npm run binaries` into the shared cache outside the repository.
// Shared through `@sriov-dra/cni-render/testing` with the apps whose output the same Go code reads.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PEERS_SOURCE_DIR = fileURLToPath(new URL('../../../../tools/go-peers/', import.meta.url));

/** Versions the answers are only meaningful for; a binary built from other pins is refused. */
export const EXPECTED_MODULES: Readonly<Record<string, string>> = {
  'gopkg.in/k8snetworkplumbingwg/multus-cni.v4': 'v4.2.3',
  'github.com/containernetworking/cni': 'v1.3.0',
};

export interface GoPluginOutcome {
  readonly type: string;
  readonly name: string;
  readonly cniVersion: string;
  readonly deviceID?: string;
  readonly ipamType: string;
  /** Absent when the plugin's stdin has no ipam key. */
  readonly ipam?: unknown;
  readonly stdin: string;
}

export interface GoDirectPlugin {
  readonly type: string;
  readonly name: string;
  readonly cniVersion: string;
  readonly deviceID?: string;
  readonly ipamType: string;
  readonly ipam?: unknown;
  readonly error?: string;
}

export interface GoCniOutcome {
  readonly delegateName: string;
  readonly confList: boolean;
  readonly networkName: string;
  readonly cniVersion: string;
  readonly plugins: readonly GoPluginOutcome[];
  readonly direct: readonly GoDirectPlugin[];
}

export interface GoSelection {
  readonly name: string;
  readonly namespace: string;
  readonly interface: string;
  readonly mac: string;
  readonly ips: readonly string[] | null;
  readonly infinibandGuid: string;
  readonly deviceID: string;
  readonly cniArgs?: unknown;
  readonly defaultRoute: readonly string[] | null;
  readonly failsLater: readonly string[];
}

export interface GoSelectionsOutcome {
  readonly noNetworks: boolean;
  readonly networks: readonly GoSelection[];
}

/** The NAD client's v1.DeviceInfo as encoding/json writes it (its struct tags, empty members omitted). */
export interface GoDeviceInfo {
  readonly type?: string;
  readonly version?: string;
  readonly pci?: Readonly<Partial<Record<'pci-address' | 'vhost-net' | 'rdma-device' | 'pf-pci-address' | 'representor-device', string>>>;
  readonly vdpa?: Readonly<Record<string, string>>;
  readonly 'vhost-user'?: Readonly<Record<string, string>>;
  readonly memif?: Readonly<Record<string, string>>;
}

/** The NAD client's v1.NetworkStatus as encoding/json writes it back after decoding an annotation. */
export interface GoNetworkStatus {
  readonly name: string;
  readonly interface?: string;
  readonly ips?: readonly string[];
  readonly mac?: string;
  readonly mtu?: number;
  readonly default?: boolean;
  readonly dns: {
    readonly nameservers?: readonly string[];
    readonly domain?: string;
    readonly search?: readonly string[];
    readonly options?: readonly string[];
  };
  readonly 'device-info'?: GoDeviceInfo;
  readonly gateway?: readonly string[];
}

export interface GoNetworkStatusOutcome {
  /** What the NAD client's GetNetworkStatus decoded from the annotation. */
  readonly statuses: readonly GoNetworkStatus[];
  /** The annotation the NAD client's SetNetworkStatus writes for those statuses. */
  readonly rewritten: string;
}

export interface GoAnswer {
  readonly id: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly stage?: string;
  readonly cni?: GoCniOutcome;
  readonly selections?: GoSelectionsOutcome;
  readonly networkStatus?: GoNetworkStatusOutcome;
  readonly hello?: Readonly<Record<string, string>>;
}

export type GoRequest =
  | { readonly kind: 'cni'; readonly config: string; readonly nadName: string; readonly nadNamespace: string }
  | { readonly kind: 'selections'; readonly text: string; readonly podNamespace: string }
  | { readonly kind: 'networkStatus'; readonly text: string }
  | { readonly kind: 'hello' };

function cacheRoot(): string {
  return process.env['SRIOV_DRA_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'sriov-dra');
}

/** The hash build-binaries.sh records: go.mod, go.sum, then the .go files in byte order, concatenated. */
export function peersSourceHash(): string {
  const goFiles = readdirSync(PEERS_SOURCE_DIR)
    .filter((file) => file.endsWith('.go'))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', ...goFiles]) hash.update(readFileSync(join(PEERS_SOURCE_DIR, file)));
  return hash.digest('hex');
}

const REBUILD = 'run `npm run binaries` (or `tools/control-plane/build-binaries.sh peers`)';

/** The binary's path; throws, saying how to build it, when it is missing or older than its sources. */
export function locatePeerBinary(): string {
  const dir = join(cacheRoot(), 'peers');
  const binary = join(dir, 'bin', 'go-peers');
  const stampFile = join(dir, 'stamp');
  if (!existsSync(binary) || !existsSync(stampFile)) throw new Error(`the Go differential peer ${binary} is not built: ${REBUILD}`);
  const stamp = readFileSync(stampFile, 'utf8');
  if (!stamp.split('\n').includes(`sources=${peersSourceHash()}`)) {
    throw new Error(`the Go differential peer ${binary} was built from other sources than tools/go-peers: ${REBUILD}`);
  }
  return binary;
}

export class GoPeer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, { resolve: (answer: GoAnswer) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private buffered = '';
  private stderr = '';
  private exited: Error | undefined;

  private constructor(binary: string) {
    this.child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.receive(chunk);
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    this.child.on('exit', (code, signal) => {
      this.fail(new Error(`go-peers exited (${signal ?? code}): ${this.stderr}`));
    });
    this.child.on('error', (error) => {
      this.fail(error);
    });
  }

  /** Starts the peer and checks it was built against the pinned upstream versions. */
  static async start(): Promise<GoPeer> {
    const peer = new GoPeer(locatePeerBinary());
    const hello = await peer.send({ kind: 'hello' });
    for (const [module, version] of Object.entries(EXPECTED_MODULES)) {
      if (hello.hello?.[module] !== version) {
        await peer.close();
        throw new Error(`go-peers is built with ${module} ${hello.hello?.[module] ?? 'missing'}, expected ${version}: ${REBUILD}`);
      }
    }
    return peer;
  }

  send(request: GoRequest): Promise<GoAnswer> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.exited !== undefined) return;
    const done = new Promise<void>((resolve) =>
      this.child.once('exit', () => {
        resolve();
      }),
    );
    this.child.stdin.end();
    await done;
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let start = 0;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n', start)) >= 0) {
      const line = this.buffered.slice(start, newline);
      start = newline + 1;
      const answer = JSON.parse(line) as GoAnswer;
      const waiter = this.pending.get(answer.id);
      if (waiter === undefined) {
        this.fail(new Error(`go-peers answered an unknown request: ${line.slice(0, 300)}`));
        return;
      }
      this.pending.delete(answer.id);
      waiter.resolve(answer);
    }
    this.buffered = this.buffered.slice(start);
  }

  private fail(error: Error): void {
    this.exited ??= error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
