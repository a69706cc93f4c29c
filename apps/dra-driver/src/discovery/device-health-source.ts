import type { DeviceHealth, DeviceHealthSource } from '../kubelet/health-service.ts';
import type { DiscoveryScanner } from './scanner.ts';

export interface ScannerHealthSourceOptions {
  readonly scanner: DiscoveryScanner;
  /** The node's pool: every device of this driver on the node is in it. */
  readonly poolName: string;
  /**
   * How often the complete list is sent again while scans succeed. The kubelet marks a device Unknown
   * when no report names it within its health timeout, which is set to three of these periods.
   */
  readonly heartbeatMs: number;
  readonly now?: () => number;
}

/**
 * Device health for the kubelet's NodeWatchResources stream, from the discovery scanner: Healthy for a
 * present VF whose PF link is up, Unhealthy (with the scanner's reason) for a VF that vanished, became
 * unreadable, or whose PF link went down. A health change is sent at once; the unchanged list is sent
 * again every heartbeat, but only while the last scan succeeded, so a driver that can no longer read
 * sysfs lets the kubelet time its devices out to Unknown rather than vouching for stale health.
 */
export class ScannerHealthSource implements DeviceHealthSource {
  private readonly options: ScannerHealthSourceOptions;
  private readonly listeners = new Set<(devices: readonly DeviceHealth[]) => void>();
  private readonly now: () => number;
  /** Unix seconds of the last successful scan: the moment the reported health was observed. */
  private observedAt: number;
  private lastScanSucceeded = true;
  private unsubscribe: (() => void) | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(options: ScannerHealthSourceOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.observedAt = this.unixNow();
  }

  /** Told the outcome of every scan, including those that changed nothing (the scanner reports only changes). */
  scanned(succeeded: boolean): void {
    this.lastScanSucceeded = succeeded;
    if (succeeded) this.observedAt = this.unixNow();
  }

  start(): void {
    this.unsubscribe ??= this.options.scanner.subscribe((event) => {
      if (event.kind === 'changed' && event.diff.healthChanges.length > 0) this.emit();
    });
    this.heartbeat ??= setInterval(() => {
      if (this.lastScanSucceeded) this.emit();
    }, this.options.heartbeatMs);
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.unsubscribe = this.heartbeat = undefined;
  }

  current(): readonly DeviceHealth[] {
    const timeout = Math.ceil((3 * this.options.heartbeatMs) / 1000);
    return [...this.options.scanner.state.health]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([deviceName, health]) => ({
        poolName: this.options.poolName,
        deviceName,
        status: health.status,
        lastUpdatedTime: this.observedAt,
        healthCheckTimeoutSeconds: timeout,
        ...(health.status === 'Unhealthy' ? { message: `${health.reason}: ${health.message}` } : {}),
      }));
  }

  subscribe(listener: (devices: readonly DeviceHealth[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    const devices = this.current();
    for (const listener of this.listeners) listener(devices);
  }

  private unixNow(): number {
    return Math.floor(this.now() / 1000);
  }
}
