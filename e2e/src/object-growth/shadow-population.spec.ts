import { describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, MANAGED_BY_VALUE, annotations, labels } from '@sriov-dra/contract';
import { RAILS_PER_POD, networksAnnotation, podShadows, railSourceConfig } from './shadow-population.ts';

const POD = { namespace: 'workloads-3', name: 'trainer-3', uid: '0d3c8a5e-1f2b-4c6d-8e9f-0a1b2c3d4e5f' };
const NODE = { name: 'node-3', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' };
const CLAIM = 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607';
const SOURCES = Array.from({ length: RAILS_PER_POD }, (_unused, rail) => ({
  namespace: POD.namespace,
  name: `rail-${String(rail)}`,
  uid: `5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a9${String(rail)}`,
  resourceVersion: String(100 + rail),
  config: railSourceConfig(rail),
}));

interface Shadow {
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    finalizers: string[];
    ownerReferences: { kind: string; name: string; uid: string }[];
  };
  spec: { config: string };
}

describe('podShadows', () => {
  const shadows = podShadows(POD, NODE, CLAIM, SOURCES) as unknown as Shadow[];

  it('gives a Pod one shadow per rail, each in its namespace, owned by it and protected by the finalizer', () => {
    expect(shadows).toHaveLength(8);
    expect(new Set(shadows.map((shadow) => shadow.metadata.name)).size).toBe(8);
    for (const { metadata } of shadows) {
      expect(metadata.namespace).toBe('workloads-3');
      expect(metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Pod', name: 'trainer-3', uid: POD.uid })]);
      expect(metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
    }
  });

  it('labels every shadow with the node UID the orphan listing selects on, and records the binding', () => {
    for (const { metadata } of shadows) {
      expect(metadata.labels[labels.managedBy]).toBe(MANAGED_BY_VALUE);
      expect(metadata.labels[labels.nodeUID]).toBe(NODE.uid);
      expect(metadata.labels[labels.claimUID]).toBe(CLAIM);
      const binding = JSON.parse(metadata.annotations[annotations.binding] ?? '{}') as { nodeName: string; source: { name: string } };
      expect(binding.nodeName).toBe('node-3');
    }
  });

  it('hands each rail its own VF: eight distinct PCI addresses in the rendered configurations', () => {
    const devices = shadows.map((shadow) => (JSON.parse(shadow.spec.config) as { deviceID: string }).deviceID);
    expect(devices).toEqual(['0000:1b:00.2', '0000:2b:00.2', '0000:3b:00.2', '0000:4b:00.2', '0000:5b:00.2', '0000:6b:00.2', '0000:7b:00.2', '0000:8b:00.2']);
  });

  it('names the shadows in the Pod’s networks annotation, one interface each', () => {
    const selections = JSON.parse(networksAnnotation(shadows as unknown as Record<string, unknown>[])) as {
      name: string;
      namespace: string;
      interface: string;
    }[];
    expect(selections.map((selection) => selection.name)).toEqual(shadows.map((shadow) => shadow.metadata.name));
    expect(selections.map((selection) => selection.interface)).toEqual(['dra0', 'dra1', 'dra2', 'dra3', 'dra4', 'dra5', 'dra6', 'dra7']);
    expect(new Set(selections.map((selection) => selection.namespace))).toEqual(new Set(['workloads-3']));
  });
});
