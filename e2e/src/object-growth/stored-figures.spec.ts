import { describe, expect, it } from '@jest/globals';
import { metricValue } from './stored-figures.ts';

const TEXT = [
  '# HELP apiserver_resource_objects [ALPHA] Number of stored objects.',
  '# TYPE apiserver_resource_objects gauge',
  'apiserver_resource_objects{group="",resource="pods"} 1000',
  'apiserver_resource_objects{group="k8s.cni.cncf.io",resource="network-attachment-definitions"} 8080',
  'apiserver_resource_objects{group="resource.k8s.io",resource="resourceclaims"} 3',
  'etcd_mvcc_db_total_size_in_bytes 2.5e+07',
  'etcd_mvcc_db_total_size_in_use_in_bytes 24000000',
].join('\n');

describe('metricValue', () => {
  it('reads a sample by name and labels', () => {
    expect(metricValue(TEXT, 'apiserver_resource_objects', { resource: 'network-attachment-definitions', group: 'k8s.cni.cncf.io' })).toBe(8080);
    expect(metricValue(TEXT, 'apiserver_resource_objects', { resource: 'pods', group: '' })).toBe(1000);
  });

  it('sums every sample the labels leave, reads exponent notation, and tells a name it does not hold from a prefix', () => {
    expect(metricValue(TEXT, 'apiserver_resource_objects')).toBe(9083);
    expect(metricValue(TEXT, 'etcd_mvcc_db_total_size_in_bytes')).toBe(25_000_000);
    expect(metricValue(TEXT, 'etcd_mvcc_db_total_size')).toBeUndefined();
  });
});
