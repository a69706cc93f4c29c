import { type ServerUnaryCall, type sendUnaryData, status } from '@grpc/grpc-js';
import type { draV1, draV1beta1 } from '@sriov-dra/kubelet-api';
import type { Logger } from 'pino';
import { type ClaimOutcome, type ClaimVerb, runClaimBatch } from './claim-batch.ts';
import { KeyedLocks } from './keyed-locks.ts';
import type { ClaimPreparer, ClaimRef, PreparedDevice } from './claim-preparer.ts';

export interface DraServiceOptions {
  readonly preparer: ClaimPreparer;
  /** The per-claim serialization; shared with any other worker that acts on claims (the repair worker). */
  readonly claimLocks?: KeyedLocks;
  /** Per call; must stay well inside the kubelet's 45 s client timeout so the answer still reaches it. */
  readonly callDeadlineMs: number;
  readonly logger: Logger;
}

/** The DRAPlugin service in both versions the kubelet may choose; both share one set of claim locks. */
export interface DraServices {
  readonly v1: draV1.DRAPluginServer;
  readonly v1beta1: draV1beta1.DRAPluginServer;
}

interface ClaimsRequest {
  readonly claims: readonly unknown[];
}

function cancelSignal(call: ServerUnaryCall<unknown, unknown>): AbortSignal {
  const controller = new AbortController();
  call.on('cancelled', () => {
    controller.abort();
  });
  return controller.signal;
}

function v1Device(device: PreparedDevice): draV1.Device {
  return {
    requestNames: [...device.requestNames],
    poolName: device.poolName,
    deviceName: device.deviceName,
    cdiDeviceIds: [...device.cdiDeviceIds],
    ...(device.shareId === undefined ? {} : { shareId: device.shareId }),
  };
}

// v1beta1 has no share_id field; the kubelet's own v1 → v1beta1 conversion drops it the same way.
function v1beta1Device(device: PreparedDevice): draV1beta1.Device {
  return { requestNames: [...device.requestNames], poolName: device.poolName, deviceName: device.deviceName, cdiDeviceIds: [...device.cdiDeviceIds] };
}

export function createDraServices(options: DraServiceOptions): DraServices {
  const { preparer, callDeadlineMs, logger } = options;
  const locks = options.claimLocks ?? new KeyedLocks();

  function logOutcomes(verb: ClaimVerb, outcomes: ReadonlyMap<string, ClaimOutcome<unknown>>): void {
    for (const [claimUID, outcome] of outcomes) {
      if (outcome.ok) logger.info({ claimUID, verb }, `${verb} succeeded`);
      else logger.warn({ claimUID, verb, err: outcome.error }, outcome.error.message);
    }
  }

  /** Runs one call; a failure of the runtime itself (never of a claim) fails the call as INTERNAL. */
  function serve<T, R>(
    verb: ClaimVerb,
    call: ServerUnaryCall<ClaimsRequest, R>,
    callback: sendUnaryData<R>,
    work: (claim: ClaimRef, signal: AbortSignal) => Promise<T>,
    respond: (outcomes: ReadonlyMap<string, ClaimOutcome<T>>) => R,
  ): void {
    runClaimBatch(call.request.claims, { verb, deadlineMs: callDeadlineMs, locks, cancelled: cancelSignal(call), logger }, work).then(
      (outcomes) => {
        logOutcomes(verb, outcomes);
        callback(null, respond(outcomes));
      },
      (error: unknown) => {
        logger.error({ err: error, verb }, `${verb} call failed inside the plugin runtime`);
        callback({ code: status.INTERNAL, details: `${verb}: ${error instanceof Error ? error.message : String(error)}` });
      },
    );
  }

  function prepareResponse<D>(toDevice: (device: PreparedDevice) => D) {
    return (outcomes: ReadonlyMap<string, ClaimOutcome<readonly PreparedDevice[]>>) => {
      const claims: Record<string, { devices: D[]; error: string }> = {};
      for (const [uid, outcome] of outcomes) {
        claims[uid] = outcome.ok ? { devices: outcome.value.map(toDevice), error: '' } : { devices: [], error: outcome.error.message };
      }
      return { claims };
    };
  }

  function unprepareResponse(outcomes: ReadonlyMap<string, ClaimOutcome<void>>) {
    const claims: Record<string, { error: string }> = {};
    for (const [uid, outcome] of outcomes) claims[uid] = { error: outcome.ok ? '' : outcome.error.message };
    return { claims };
  }

  const prepare = (claim: ClaimRef, signal: AbortSignal): Promise<readonly PreparedDevice[]> => preparer.prepare(claim, signal);
  const unprepare = (claim: ClaimRef, signal: AbortSignal): Promise<void> => preparer.unprepare(claim, signal);

  return {
    v1: {
      nodePrepareResources: (call, callback) => {
        serve('prepare', call, callback, prepare, prepareResponse(v1Device));
      },
      nodeUnprepareResources: (call, callback) => {
        serve('unprepare', call, callback, unprepare, unprepareResponse);
      },
    },
    v1beta1: {
      nodePrepareResources: (call, callback) => {
        serve('prepare', call, callback, prepare, prepareResponse(v1beta1Device));
      },
      nodeUnprepareResources: (call, callback) => {
        serve('unprepare', call, callback, unprepare, unprepareResponse);
      },
    },
  };
}
