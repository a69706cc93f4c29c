import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SriovDraError } from '@sriov-dra/contract';
import { removeAbandonedTemporaries, writeFileAtomic } from '@sriov-dra/durable-files';
import { type ClaimRecords, checkpointReadError, decodeCheckpoint, encodeCheckpoint } from './checkpoint-codec.ts';
import { type ClaimRecord, claimRecordSchema } from './checkpoint-record.ts';

export const CHECKPOINT_FILE_NAME = 'checkpoint.json';

export interface CheckpointStoreOptions {
  /** The kubelet plugin directory of this driver, e.g. /var/lib/kubelet/plugins/sriovnetwork.k8snetworkplumbingwg.io. */
  readonly directory: string;
  /** Replaces the durable write, so tests can fail it at will. */
  readonly write?: (path: string, data: string) => Promise<void>;
}

/**
 * The prepared-claims checkpoint (§6.3). Memory always equals the last durable file: a mutation builds the
 * next state beside the current one, writes it, and only then makes it current, so a failed write leaves
 * both memory and file as they were. Mutations run one at a time in call order, so none is lost to a
 * concurrent one. Callers get deep copies and give back whole records: nothing outside the store can
 * change its state without a write.
 */
export class CheckpointStore {
  readonly file: string;
  private records: ClaimRecords;
  private readonly write: (path: string, data: string) => Promise<void>;
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(file: string, records: ClaimRecords, write: (path: string, data: string) => Promise<void>) {
    this.file = file;
    this.records = records;
    this.write = write;
  }

  /**
   * Loads the checkpoint; a missing file is an empty checkpoint (first start on this node). A file that
   * cannot be read or trusted is a typed error for the process to stop on; it is never modified.
   */
  static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
    const file = join(options.directory, CHECKPOINT_FILE_NAME);
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw checkpointReadError(file, error);
    }
    const records = text === undefined ? new Map<string, ClaimRecord>() : decodeCheckpoint(text, file);
    return new CheckpointStore(file, records, options.write ?? writeFileAtomic);
  }

  /**
   * Removes the temporary files of checkpoint writes a killed process left in `directory`, and returns
   * their names. Only the driver itself calls this, at startup before its first write: a reader such as
   * the admin CLI would remove a running driver's write in flight.
   */
  static removeAbandonedWrites(directory: string): Promise<string[]> {
    return removeAbandonedTemporaries(directory, (target) => target === CHECKPOINT_FILE_NAME);
  }

  get(claimUID: string): ClaimRecord | undefined {
    const record = this.records.get(claimUID);
    return record === undefined ? undefined : structuredClone(record);
  }

  /** Every record of one Pod, ordered by claim UID. */
  claimsOfPod(podUID: string): ClaimRecord[] {
    return this.claims().filter((record) => record.pod.uid === podUID);
  }

  /** Every record, ordered by claim UID. */
  claims(): ClaimRecord[] {
    return [...this.records.keys()]
      .sort()
      .map((claimUID) => this.get(claimUID))
      .filter((record) => record !== undefined);
  }

  /**
   * Adds or replaces the record of one claim. A claim UID already recorded for another Pod is refused
   * (§6.3): the old Pod's release is unfinished, and replacing its record would forget what to undo.
   */
  upsertClaim(record: ClaimRecord): Promise<void> {
    return this.mutate((records) => {
      const existing = records.get(record.claimUID);
      if (existing !== undefined && existing.pod.uid !== record.pod.uid) {
        throw new SriovDraError(
          'ClaimReleaseInProgress',
          `the claim is still recorded for Pod ${existing.pod.namespace}/${existing.pod.name} (${existing.pod.uid}), not Pod ${record.pod.uid}`,
          { object: { kind: 'ResourceClaim', namespace: record.claimNamespace, name: record.claimName, uid: record.claimUID } },
        );
      }
      records.set(record.claimUID, checkedRecord(record));
    });
  }

  /**
   * Replaces one claim's record with `update(copy of it)`; resolves to the stored result, or undefined
   * (nothing written) when the claim has no record. The update must keep the claim and Pod identity.
   */
  updateClaim(claimUID: string, update: (record: ClaimRecord) => ClaimRecord): Promise<ClaimRecord | undefined> {
    return this.mutate((records) => {
      const current = records.get(claimUID);
      if (current === undefined) return undefined;
      const next = checkedRecord(update(structuredClone(current)));
      if (next.claimUID !== claimUID || next.pod.uid !== current.pod.uid) {
        throw new Error(`checkpoint update of claim ${claimUID} changed the claim or Pod identity`);
      }
      records.set(claimUID, next);
      return structuredClone(next);
    });
  }

  /** Removes one claim's record and nothing else (other claims of the same Pod stay). False when absent. */
  removeClaim(claimUID: string): Promise<boolean> {
    return this.mutate((records) => records.delete(claimUID));
  }

  private mutate<T>(change: (records: Map<string, ClaimRecord>) => T): Promise<T> {
    const run = this.tail.then(async () => {
      const next = new Map(this.records);
      const result = change(next);
      if (!sameEntries(next, this.records)) {
        await this.write(this.file, encodeCheckpoint(next));
        this.records = next;
      }
      return result;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}

function sameEntries(a: ClaimRecords, b: ClaimRecords): boolean {
  return a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);
}

/** Validates before writing, so the file always holds what decode accepts; returns a private copy. */
function checkedRecord(record: ClaimRecord): ClaimRecord {
  const parsed = claimRecordSchema.safeParse(record);
  if (parsed.success) return structuredClone(parsed.data);
  const issue = parsed.error.issues[0];
  throw new Error(
    `refusing to checkpoint an invalid record of claim ${record.claimUID}: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
  );
}
