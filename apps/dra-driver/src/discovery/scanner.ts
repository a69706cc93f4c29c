import { watch } from 'node:fs';
import path from 'node:path';
import type { Inventory } from './discover.ts';
import { INITIAL_SCAN_STATE, type ScanDiff, type ScanState, diffScans } from './rescan.ts';
import type { SysfsError, SysfsResult } from './sysfs-error.ts';

export type ScanEvent = { readonly kind: 'changed'; readonly diff: ScanDiff } | { readonly kind: 'failed'; readonly error: SysfsError };

/** Starts watching for changes and returns the function that stops it. */
export type ChangeWatcher = (onChange: () => void) => () => void;

/** The timer functions the scanner uses, injectable so tests drive time by hand. */
export interface ScannerTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface DiscoveryScannerOptions {
  readonly scan: () => Promise<SysfsResult<Inventory>>;
  readonly watch?: ChangeWatcher;
  /** Periodic rescan: the only trigger that sees every change, since sysfs notifies only some. */
  readonly intervalMs?: number;
  /** Change notifications arrive in bursts (one per file of a bind); one rescan follows the burst. */
  readonly debounceMs?: number;
  readonly timers?: ScannerTimers;
}

const systemTimers: ScannerTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => {
    clearInterval(handle as NodeJS.Timeout);
  },
};

/**
 * Rescans the hardware and tells subscribers what changed: inventory changes (for ResourceSlices) and
 * health changes (for the kubelet health stream). Scans never overlap: a request during a scan is served
 * by one more scan after it, shared by every request made meanwhile.
 */
export class DiscoveryScanner {
  private current: ScanState = INITIAL_SCAN_STATE;
  private readonly listeners = new Set<(event: ScanEvent) => void>();
  private running: Promise<ScanEvent> | undefined;
  private queued: Promise<ScanEvent> | undefined;
  private debounce: unknown;
  private interval: unknown;
  private unwatch: (() => void) | undefined;
  private readonly options: DiscoveryScannerOptions;
  private readonly timers: ScannerTimers;

  constructor(options: DiscoveryScannerOptions) {
    this.options = options;
    this.timers = options.timers ?? systemTimers;
  }

  get state(): ScanState {
    return this.current;
  }

  subscribe(listener: (event: ScanEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  rescan(): Promise<ScanEvent> {
    if (this.running === undefined) {
      this.running = this.scanOnce().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.rescan();
    });
    return this.queued;
  }

  /** A change notification: rescans once the notifications have been quiet for the debounce period. */
  notifyChange(): void {
    if (this.debounce !== undefined) this.timers.clearTimeout(this.debounce);
    this.debounce = this.timers.setTimeout(() => {
      this.debounce = undefined;
      void this.rescan();
    }, this.options.debounceMs ?? 500);
  }

  start(): void {
    this.interval ??= this.timers.setInterval(() => void this.rescan(), this.options.intervalMs ?? 30_000);
    this.unwatch ??= this.options.watch?.(() => {
      this.notifyChange();
    });
  }

  stop(): void {
    if (this.interval !== undefined) this.timers.clearInterval(this.interval);
    if (this.debounce !== undefined) this.timers.clearTimeout(this.debounce);
    this.unwatch?.();
    this.interval = this.debounce = this.unwatch = undefined;
  }

  private async scanOnce(): Promise<ScanEvent> {
    const scanned = await this.options.scan();
    const event: ScanEvent = scanned.ok ? { kind: 'changed', diff: diffScans(this.current, scanned.value) } : { kind: 'failed', error: scanned.error };
    if (event.kind === 'changed') {
      this.current = event.diff.state;
      const { added, removed, changed } = event.diff.inventoryChanges;
      if (added.length + removed.length + changed.length + event.diff.healthChanges.length === 0) return event;
    }
    for (const listener of this.listeners) listener(event);
    return event;
  }
}

/**
 * Watches the directories whose entries change when VFs appear or vanish and when drivers bind or unbind.
 * Where inotify gives nothing (sysfs attribute files do not notify, and some kernels notify no sysfs
 * change at all) or a directory is absent, the periodic rescan still catches the change.
 */
export function watchSysfs(root: string): ChangeWatcher {
  return (onChange) => {
    const watchers = ['bus/pci/devices', 'class/net'].flatMap((relative) => {
      try {
        const watcher = watch(path.join(root, relative), () => {
          onChange();
        });
        watcher.on('error', () => {
          watcher.close();
        });
        return [watcher];
      } catch {
        return [];
      }
    });
    return () => {
      for (const watcher of watchers) watcher.close();
    };
  };
}
