import type { ServerWritableStream } from '@grpc/grpc-js';
import { draHealthV1alpha1 } from '@sriov-dra/kubelet-api';
import type { Logger } from 'pino';

export type DeviceHealthStatus = 'Healthy' | 'Unhealthy' | 'Unknown';

export interface DeviceHealth {
  readonly poolName: string;
  readonly deviceName: string;
  readonly status: DeviceHealthStatus;
  /** Unix seconds of the observation. */
  readonly lastUpdatedTime: number;
  /** Absent: the kubelet's default health timeout applies. */
  readonly healthCheckTimeoutSeconds?: number;
  readonly message?: string;
}

/**
 * Where device health comes from (link state, PF presence …); implemented elsewhere in the driver.
 * Every list is complete for the driver: the kubelet marks devices missing from it Unknown.
 */
export interface DeviceHealthSource {
  current(): readonly DeviceHealth[];
  /** Called with the complete list after each change; returns the unsubscribe function. */
  subscribe(listener: (devices: readonly DeviceHealth[]) => void): () => void;
}

const WIRE_STATUS: Readonly<Record<DeviceHealthStatus, draHealthV1alpha1.HealthStatus>> = {
  Healthy: draHealthV1alpha1.HealthStatus.HEALTHY,
  Unhealthy: draHealthV1alpha1.HealthStatus.UNHEALTHY,
  Unknown: draHealthV1alpha1.HealthStatus.UNKNOWN,
};

function toWire(devices: readonly DeviceHealth[]): draHealthV1alpha1.NodeWatchResourcesResponse {
  return {
    devices: devices.map((device) => ({
      device: { poolName: device.poolName, deviceName: device.deviceName },
      health: WIRE_STATUS[device.status],
      lastUpdatedTime: device.lastUpdatedTime,
      healthCheckTimeoutSeconds: device.healthCheckTimeoutSeconds ?? 0,
      message: device.message ?? '',
    })),
  };
}

type WatchStream = ServerWritableStream<draHealthV1alpha1.NodeWatchResourcesRequest, draHealthV1alpha1.NodeWatchResourcesResponse>;

/**
 * The DRAResourceHealth service: each NodeWatchResources stream gets the current list at once and the
 * complete list again after every change, until the kubelet cancels it or the plugin stops.
 */
export class HealthService {
  readonly #source: DeviceHealthSource;
  readonly #logger: Logger;
  readonly #streams = new Map<WatchStream, () => void>();

  constructor(source: DeviceHealthSource, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
  }

  readonly server: draHealthV1alpha1.DRAResourceHealthServer = {
    nodeWatchResources: (call) => {
      this.#watch(call);
    },
  };

  #watch(call: WatchStream): void {
    const unsubscribe = this.#source.subscribe((devices) => {
      call.write(toWire(devices));
    });
    const forget = (): void => {
      unsubscribe();
      this.#streams.delete(call);
    };
    this.#streams.set(call, forget);
    call.on('cancelled', forget);
    call.on('error', forget);
    this.#logger.info('kubelet opened a device health stream');
    call.write(toWire(this.#source.current()));
  }

  /** Ends every open stream, so a graceful server shutdown does not wait for them. */
  close(): void {
    for (const [call, forget] of this.#streams) {
      forget();
      call.end();
    }
  }

  get openStreams(): number {
    return this.#streams.size;
  }
}
