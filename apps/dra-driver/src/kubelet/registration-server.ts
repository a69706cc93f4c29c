import { registrationV1, DRA_PLUGIN_TYPE, DRA_PLUGIN_V1, DRA_PLUGIN_V1BETA1 } from '@sriov-dra/kubelet-api';
import type { Logger } from 'pino';
import { KubeletPluginError } from './kubelet-plugin-error.ts';

export type RegistrationState =
  { readonly state: 'pending' } | { readonly state: 'registered' } | { readonly state: 'rejected'; readonly error: KubeletPluginError };

export interface RegistrationOptions {
  readonly driverName: string;
  /** Absolute path of the DRA socket; the kubelet dials exactly this. */
  readonly endpoint: string;
  readonly logger: Logger;
  /** Told every status the kubelet reports, so readiness can follow it. */
  readonly onStatus?: (state: RegistrationState) => void;
}

/**
 * The Registration service on the plugin-registration socket: the kubelet's plugin watcher asks
 * GetInfo, validates and registers the plugin, then reports the outcome with NotifyRegistrationStatus.
 * A rejection is logged as an error and kept as the state, because nothing will call the plugin.
 */
export class RegistrationService {
  #state: RegistrationState = { state: 'pending' };
  readonly #options: RegistrationOptions;

  constructor(options: RegistrationOptions) {
    this.#options = options;
  }

  get state(): RegistrationState {
    return this.#state;
  }

  readonly server: registrationV1.RegistrationServer = {
    getInfo: (_call, callback) => {
      callback(null, {
        type: DRA_PLUGIN_TYPE,
        name: this.#options.driverName,
        endpoint: this.#options.endpoint,
        // Newest first: the kubelet uses the first entry it supports.
        supportedVersions: [DRA_PLUGIN_V1, DRA_PLUGIN_V1BETA1],
      });
    },
    notifyRegistrationStatus: (call, callback) => {
      this.#record(call.request);
      callback(null, {});
    },
  };

  #record(status: registrationV1.RegistrationStatus): void {
    const { driverName, logger, onStatus } = this.#options;
    if (status.pluginRegistered) {
      this.#state = { state: 'registered' };
      logger.info({ driver: driverName, endpoint: this.#options.endpoint }, 'kubelet registered the DRA plugin');
    } else {
      const error = new KubeletPluginError(
        'RegistrationRejected',
        `DRA driver ${driverName}`,
        `the kubelet refused the plugin: ${status.error || 'no reason given'}`,
      );
      this.#state = { state: 'rejected', error };
      logger.error({ driver: driverName, err: error }, error.message);
    }
    onStatus?.(this.#state);
  }
}
