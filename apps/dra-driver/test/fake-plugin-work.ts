// Test doubles for the two interfaces the kubelet plugin runtime delegates to.
import { SriovDraError } from '@sriov-dra/contract';
import type { ClaimPreparer, ClaimRef, PreparedDevice } from '../src/kubelet/claim-preparer.ts';
import type { DeviceHealth, DeviceHealthSource } from '../src/kubelet/health-service.ts';

export interface PreparerCall {
  readonly verb: 'prepare' | 'unprepare';
  readonly claim: ClaimRef;
}

/**
 * Prepares every claim into one VF, except a claim named "no-template", which fails the way a claim
 * without a network template does. A per-UID delay lets tests hold a claim in flight.
 */
export class FakePreparer implements ClaimPreparer {
  readonly calls: PreparerCall[] = [];
  readonly delays = new Map<string, number>();
  active = 0;
  maxActive = 0;
  readonly maxActiveByClaim = new Map<string, number>();
  readonly #activeByClaim = new Map<string, number>();

  async #track<T>(verb: PreparerCall['verb'], claim: ClaimRef, result: () => T): Promise<T> {
    this.calls.push({ verb, claim });
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    const claimActive = (this.#activeByClaim.get(claim.uid) ?? 0) + 1;
    this.#activeByClaim.set(claim.uid, claimActive);
    this.maxActiveByClaim.set(claim.uid, Math.max(this.maxActiveByClaim.get(claim.uid) ?? 0, claimActive));
    try {
      await new Promise((resolve) => setTimeout(resolve, this.delays.get(claim.uid) ?? 0));
      return result();
    } finally {
      this.active -= 1;
      this.#activeByClaim.set(claim.uid, claimActive - 1);
    }
  }

  prepare(claim: ClaimRef): Promise<readonly PreparedDevice[]> {
    return this.#track('prepare', claim, () => {
      if (claim.name === 'no-template') {
        throw new SriovDraError('MissingNetworkTemplate', 'no NAD template for VF 0000:3b:02.1', {
          object: { kind: 'ResourceClaim', namespace: claim.namespace, name: claim.name },
        });
      }
      return [
        {
          requestNames: ['nic'],
          poolName: 'node-a',
          deviceName: '0000-3b-02-0',
          cdiDeviceIds: [`sriovnetwork.k8snetworkplumbingwg.io/vf=${claim.uid}-0000-3b-02-0`],
          shareId: 'share-1',
        },
      ];
    });
  }

  unprepare(claim: ClaimRef): Promise<void> {
    return this.#track('unprepare', claim, () => undefined);
  }
}

export class FakeHealthSource implements DeviceHealthSource {
  #devices: readonly DeviceHealth[];
  readonly #listeners = new Set<(devices: readonly DeviceHealth[]) => void>();

  constructor(devices: readonly DeviceHealth[]) {
    this.#devices = devices;
  }

  current(): readonly DeviceHealth[] {
    return this.#devices;
  }

  subscribe(listener: (devices: readonly DeviceHealth[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(devices: readonly DeviceHealth[]): void {
    this.#devices = devices;
    for (const listener of this.#listeners) listener(devices);
  }

  get subscribers(): number {
    return this.#listeners.size;
  }
}
