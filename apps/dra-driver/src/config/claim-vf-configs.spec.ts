import { describe, expect, it } from '@jest/globals';
import { type AllocatedClaim, type DeviceAllocationConfig, configAppliesTo, effectiveVfConfigs } from './claim-vf-configs.ts';

const DRIVER = 'sriovnetwork.k8snetworkplumbingwg.io';
const API_VERSION = 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1';
const NONE = { driver: '', addVhostMount: false, ifName: '', netAttachDefName: '', netAttachDefNamespace: '' };

describe('configAppliesTo', () => {
  it.each<[readonly string[] | undefined, string, boolean]>([
    [undefined, 'nic', true],
    [[], 'nic', true],
    [[], 'nic/fast', true],
    [['nic'], 'nic', true],
    [['gpu', 'nic'], 'nic', true],
    [['nic'], 'nic/fast', true],
    [['nic/fast'], 'nic/fast', true],
    [['nic/fast'], 'nic/slow', false],
    [['nic/fast'], 'nic', false],
    [['fast'], 'nic/fast', false],
    [['gpu'], 'nic', false],
    [['ni'], 'nic', false],
    [['nic'], 'nicx', false],
  ])('requests %p apply to result request %p: %p', (requests, request, expected) => {
    expect(configAppliesTo(requests, request)).toBe(expected);
  });
});

function vfEntry(source: string, requests: string[], fields: Record<string, unknown>): DeviceAllocationConfig {
  return { source, requests, opaque: { driver: DRIVER, parameters: { apiVersion: API_VERSION, kind: 'VfConfig', ...fields } } };
}

function claim(config: DeviceAllocationConfig[], results = [{ request: 'nic', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-0' }]): AllocatedClaim {
  return {
    metadata: { namespace: 'ai-workloads', name: 'pairs-x', uid: '0b1c2d3e-1111-4222-8333-444455556666' },
    status: { allocation: { devices: { results, config } } },
  };
}

describe('effectiveVfConfigs', () => {
  it('returns only this driver\u2019s results, in allocation order', () => {
    const results = [
      { request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-0' },
      { request: 'nic-b', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-1' },
      { request: 'nic-a', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-0' },
    ];
    const outcome = effectiveVfConfigs(claim([vfEntry('FromClaim', ['nic-a'], { ifName: 'net7' })], results));
    expect(outcome).toEqual({
      ok: true,
      value: [
        { result: { request: 'nic-b', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-1' }, config: NONE },
        { result: { request: 'nic-a', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-0' }, config: { ...NONE, ifName: 'net7' } },
      ],
    });
  });

  it('layers class configs before claim configs whatever their list order, keeping list order within a source', () => {
    const outcome = effectiveVfConfigs(
      claim([
        vfEntry('FromClaim', [], { netAttachDefName: 'claim-first', ifName: 'net1' }),
        vfEntry('FromClass', [], { netAttachDefName: 'class-first', netAttachDefNamespace: 'infra', driver: 'vfio-pci' }),
        vfEntry('FromClaim', [], { netAttachDefName: 'claim-second' }),
        vfEntry('FromClass', [], { netAttachDefName: 'class-second', netAttachDefNamespace: 'infra', addVhostMount: true }),
      ]),
    );
    expect(outcome.ok ? outcome.value.map((entry) => entry.config) : outcome.error.message).toEqual([
      { driver: 'vfio-pci', addVhostMount: true, ifName: 'net1', netAttachDefName: 'claim-second', netAttachDefNamespace: '' },
    ]);
  });

  it('applies a class reference with namespace and a claim namespace alone: the class name in the claim namespace', () => {
    const outcome = effectiveVfConfigs(
      claim([
        vfEntry('FromClass', [], { netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }),
        vfEntry('FromClaim', ['nic'], { netAttachDefNamespace: 'team' }),
      ]),
    );
    expect(outcome.ok ? outcome.value.map((entry) => entry.config) : outcome.error.message).toEqual([
      { ...NONE, netAttachDefName: 'rail-a', netAttachDefNamespace: 'team' },
    ]);
  });

  it('matches subrequest results by exact name or by their parent request', () => {
    const results = [
      { request: 'nic/fast', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-0' },
      { request: 'nic/slow', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-1' },
      { request: 'other', driver: DRIVER, pool: 'node-a', device: '0000-3b-02-2' },
    ];
    const outcome = effectiveVfConfigs(
      claim(
        [
          vfEntry('FromClaim', ['nic'], { netAttachDefName: 'parent' }),
          vfEntry('FromClaim', ['nic/fast'], { ifName: 'fast0' }),
          vfEntry('FromClaim', ['fast'], { driver: 'vfio-pci' }),
        ],
        results,
      ),
    );
    expect(outcome.ok ? outcome.value.map((entry) => [entry.result.request, entry.config]) : outcome.error.message).toEqual([
      ['nic/fast', { ...NONE, netAttachDefName: 'parent', ifName: 'fast0' }],
      ['nic/slow', { ...NONE, netAttachDefName: 'parent' }],
      ['other', NONE],
    ]);
  });

  it('skips other drivers\u2019 configs, whatever their parameters, and entries without opaque parameters', () => {
    const outcome = effectiveVfConfigs(
      claim([
        { source: 'FromClass', requests: [], opaque: { driver: 'gpu.example.com', parameters: { kind: 'GpuConfig', sharing: 'timeSlicing' } } },
        { source: 'FromClaim', requests: [] },
        vfEntry('FromClaim', [], { netAttachDefName: 'rail-a' }),
      ]),
    );
    expect(outcome.ok ? outcome.value.map((entry) => entry.config) : outcome.error.message).toEqual([{ ...NONE, netAttachDefName: 'rail-a' }]);
  });

  it('rejects malformed parameters of this driver, naming the claim and the config index, even when no result matches', () => {
    const outcome = effectiveVfConfigs(
      claim([vfEntry('FromClass', [], { netAttachDefName: 'rail-a' }), vfEntry('FromClaim', ['unmatched'], { netAttachDefNames: 'typo' })]),
    );
    expect(outcome.ok ? 'accepted' : [outcome.error.code, outcome.error.object]).toEqual([
      'InvalidVfConfig',
      {
        kind: 'ResourceClaim',
        namespace: 'ai-workloads',
        name: 'pairs-x',
        uid: '0b1c2d3e-1111-4222-8333-444455556666',
        field: 'status.allocation.devices.config[1]',
      },
    ]);
    expect(outcome.ok ? '' : outcome.error.message).toContain('ResourceClaim ai-workloads/pairs-x status.allocation.devices.config[1]');
  });

  it('rejects an unknown config source, naming the index', () => {
    const outcome = effectiveVfConfigs(claim([vfEntry('FromPod', [], {})]));
    expect(outcome.ok ? 'accepted' : [outcome.error.code, outcome.error.object?.field]).toEqual(['InvalidApiObject', 'status.allocation.devices.config[0]']);
  });

  it('says which source is unknown', () => {
    const outcome = effectiveVfConfigs(claim([vfEntry('FromPod', [], {})]));
    expect(outcome.ok ? outcome : outcome.error.detail).toBe('source "FromPod" is neither FromClass nor FromClaim');
  });

  it('returns nothing for a claim whose status has no allocation', () => {
    expect(effectiveVfConfigs({ metadata: { namespace: 'ai-workloads', name: 'pairs-x', uid: '0b1c2d3e-1111-4222-8333-444455556666' }, status: {} })).toEqual({
      ok: true,
      value: [],
    });
  });

  it('returns nothing for a claim without allocation', () => {
    expect(effectiveVfConfigs({ metadata: { namespace: 'ai-workloads', name: 'pairs-x', uid: '0b1c2d3e-1111-4222-8333-444455556666' } })).toEqual({
      ok: true,
      value: [],
    });
  });
});
