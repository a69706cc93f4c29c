import { describe, expect, it } from '@jest/globals';
import type { VfConfig } from '@sriov-dra/contract';
import { layerVfConfigs } from './vf-config-layering.ts';

const base = { apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1', kind: 'VfConfig' } as const;
const vf = (fields: Omit<VfConfig, 'apiVersion' | 'kind'>): VfConfig => ({ ...base, ...fields });

describe('layerVfConfigs (§5.2)', () => {
  it.each<[string, VfConfig[], { driver: string; addVhostMount: boolean; ifName: string; netAttachDefName: string; netAttachDefNamespace: string }]>([
    ['nothing configured', [], { driver: '', addVhostMount: false, ifName: '', netAttachDefName: '', netAttachDefNamespace: '' }],
    [
      'every field of one config',
      [vf({ driver: 'vfio-pci', addVhostMount: true, ifName: 'net1', netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' })],
      { driver: 'vfio-pci', addVhostMount: true, ifName: 'net1', netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' },
    ],
    [
      'later values win field by field',
      [vf({ driver: 'vfio-pci', ifName: 'net1' }), vf({ ifName: 'net2' })],
      { driver: 'vfio-pci', addVhostMount: false, ifName: 'net2', netAttachDefName: '', netAttachDefNamespace: '' },
    ],
    [
      'empty strings do not override',
      [vf({ driver: 'vfio-pci', ifName: 'net1', netAttachDefName: 'rail-a' }), vf({ driver: '', ifName: '', netAttachDefName: '' })],
      { driver: 'vfio-pci', addVhostMount: false, ifName: 'net1', netAttachDefName: 'rail-a', netAttachDefNamespace: '' },
    ],
    [
      '"default" is a value like any driver name',
      [vf({ driver: 'vfio-pci' }), vf({ driver: 'default' })],
      { driver: 'default', addVhostMount: false, ifName: '', netAttachDefName: '', netAttachDefNamespace: '' },
    ],
    [
      'addVhostMount false does not undo an earlier true',
      [vf({ addVhostMount: true }), vf({ addVhostMount: false })],
      { driver: '', addVhostMount: true, ifName: '', netAttachDefName: '', netAttachDefNamespace: '' },
    ],
    [
      'addVhostMount true after false',
      [vf({ addVhostMount: false }), vf({ addVhostMount: true })],
      { driver: '', addVhostMount: true, ifName: '', netAttachDefName: '', netAttachDefNamespace: '' },
    ],
    [
      'a later name without namespace resets the namespace: A@infra then B is B@Pod namespace',
      [vf({ netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }), vf({ netAttachDefName: 'rail-b' })],
      { driver: '', addVhostMount: false, ifName: '', netAttachDefName: 'rail-b', netAttachDefNamespace: '' },
    ],
    [
      'a later name with namespace replaces both',
      [vf({ netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }), vf({ netAttachDefName: 'rail-b', netAttachDefNamespace: 'team' })],
      { driver: '', addVhostMount: false, ifName: '', netAttachDefName: 'rail-b', netAttachDefNamespace: 'team' },
    ],
    [
      'a later namespace alone moves the current name',
      [vf({ netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }), vf({ netAttachDefNamespace: 'team' })],
      { driver: '', addVhostMount: false, ifName: '', netAttachDefName: 'rail-a', netAttachDefNamespace: 'team' },
    ],
    [
      'a later namespace alone sets the namespace of a name given without one',
      [vf({ netAttachDefName: 'rail-a' }), vf({ netAttachDefNamespace: 'team' })],
      { driver: '', addVhostMount: false, ifName: '', netAttachDefName: 'rail-a', netAttachDefNamespace: 'team' },
    ],
    [
      'an empty namespace alone cannot reset to the Pod namespace',
      [vf({ netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }), vf({ netAttachDefNamespace: '' })],
      { driver: '', addVhostMount: false, ifName: '', netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' },
    ],
    [
      'an earlier namespace alone is dropped by a later name',
      [vf({ netAttachDefNamespace: 'team' }), vf({ netAttachDefName: 'rail-b' })],
      { driver: '', addVhostMount: false, ifName: '', netAttachDefName: 'rail-b', netAttachDefNamespace: '' },
    ],
    [
      'other fields survive a reference replacement',
      [vf({ driver: 'vfio-pci', addVhostMount: true, netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }), vf({ netAttachDefName: 'rail-b' })],
      { driver: 'vfio-pci', addVhostMount: true, ifName: '', netAttachDefName: 'rail-b', netAttachDefNamespace: '' },
    ],
  ])('%s', (_, configs, expected) => {
    expect(layerVfConfigs(configs)).toEqual(expected);
  });
});
