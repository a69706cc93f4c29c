import { type FSWatcher, watch } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { removeFileDurably, writeFileAtomic } from '@sriov-dra/durable-files';
import type { DaemonConfig } from '../daemon-config.ts';
import { EntryConfigError } from './entry-config-error.ts';
import { ENTRY_CONFIG_FILE, autoconfigDir, configuredPrimaryName, findPrimaryConfName, renderEntryConfig } from './entry-config.ts';

/** How often the directory is checked even without a change notification (inotify can drop events). */
const RECHECK_INTERVAL_MS = 5_000;

/** What one check of the primary configuration did. */
export type EntryConfigOutcome = 'written' | 'unchanged' | 'no-primary' | 'invalid-primary';

export interface EntryConfigWriter {
  /** <cniConfigDir>/00-multus.conf. */
  readonly path: string;
  /** Stops watching and removes the entry file if it is still the one generated here, as upstream removes it when its daemon exits. */
  stop(): Promise<void>;
}

export interface EntryConfigWriterOptions {
  readonly logger: Logger;
  readonly recheckIntervalMs?: number;
}

/**
 * Keeps <cniConfigDir>/00-multus.conf generated from the primary network's configuration (auto mode):
 * written once at start, then again whenever a change notification or the periodic check finds that the
 * rendering differs from the file. The primary file is looked up anew on every check, so a replaced or
 * renamed primary network is followed. Identical content is never rewritten (a rewrite would wake the
 * runtime's own watch for nothing). Checks never overlap; a notification during one schedules one more.
 */
export async function startEntryConfigWriter(config: DaemonConfig, options: EntryConfigWriterOptions): Promise<EntryConfigWriter> {
  const { logger } = options;
  const sourceDir = autoconfigDir(config);
  const path = join(config.cniConfigDir, ENTRY_CONFIG_FILE);
  let lastOutcome: EntryConfigOutcome | undefined;
  /** The content this daemon last made current, so that stop removes only a file that is still ours. */
  let owned: string | undefined;

  const report = (outcome: EntryConfigOutcome, fields: Record<string, unknown>, message: string): void => {
    // Steady states are logged once when entered; every check is visible at debug level.
    const level = outcome === 'written' ? 'info' : outcome === 'unchanged' || outcome === lastOutcome ? 'debug' : 'warn';
    logger[level]({ entryConfig: path, outcome, ...fields }, message);
    lastOutcome = outcome;
  };

  const check = async (): Promise<void> => {
    const name = configuredPrimaryName(config) ?? findPrimaryConfName(await readdir(sourceDir).catch(() => []));
    if (name === undefined) {
      report('no-primary', { dir: sourceDir }, `no primary CNI configuration in ${sourceDir} yet; ${ENTRY_CONFIG_FILE} follows once one appears`);
      return;
    }
    const primaryPath = join(sourceDir, name);
    let rendered: string;
    try {
      rendered = renderEntryConfig(config, { path: primaryPath, bytes: await readFile(primaryPath, 'utf8') });
    } catch (error) {
      if (!(error instanceof EntryConfigError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      report('invalid-primary', { primary: primaryPath, err: error }, `cannot generate ${ENTRY_CONFIG_FILE}: ${(error as Error).message}`);
      return;
    }
    const current = await readFile(path, 'utf8').catch(() => undefined);
    owned = rendered;
    if (current === rendered) {
      report('unchanged', { primary: primaryPath }, `${ENTRY_CONFIG_FILE} is current`);
      return;
    }
    await writeFileAtomic(path, rendered, { createDirectoryMode: 0o700 });
    report('written', { primary: primaryPath }, `wrote ${ENTRY_CONFIG_FILE} for the primary network`);
  };

  const halted = new AbortController();
  let running: Promise<void> | undefined;
  let requests = 0;
  const schedule = (): void => {
    if (halted.signal.aborted) return;
    requests += 1;
    if (running !== undefined) return;
    running = (async () => {
      for (let handled = 0; handled < requests && !halted.signal.aborted;) {
        handled = requests;
        await check().catch((error: unknown) => {
          logger.error({ err: error, entryConfig: path }, `checking ${ENTRY_CONFIG_FILE} failed; retrying on the next change or check`);
        });
      }
    })().finally(() => {
      running = undefined;
    });
  };

  schedule();
  await running;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(sourceDir, (_event, file) => {
      // Our own writes (the file and its hidden temporary) are no reason to look again.
      if (file !== null && (file.startsWith(ENTRY_CONFIG_FILE) || file.startsWith(`.${ENTRY_CONFIG_FILE}`))) return;
      schedule();
    });
    watcher.on('error', (error) => {
      logger.warn({ err: error, dir: sourceDir }, 'watching the CNI configuration directory failed; relying on the periodic check');
    });
  } catch (error) {
    logger.warn({ err: error, dir: sourceDir }, 'cannot watch the CNI configuration directory; relying on the periodic check');
  }
  const timer = setInterval(schedule, options.recheckIntervalMs ?? RECHECK_INTERVAL_MS);
  timer.unref();

  return {
    path,
    async stop() {
      halted.abort();
      clearInterval(timer);
      watcher?.close();
      await running;
      if (owned === undefined || (await readFile(path, 'utf8').catch(() => undefined)) !== owned) return;
      await removeFileDurably(path).catch((error: unknown) => {
        logger.warn({ err: error, entryConfig: path }, `cannot remove ${ENTRY_CONFIG_FILE}`);
      });
    },
  };
}
