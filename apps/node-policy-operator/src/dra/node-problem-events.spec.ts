import { describe, expect, it } from '@jest/globals';
import type { EventRecord, EventRecorder, KubeObject, ObjectReference } from '@sriov-dra/k8s';
import { NodeProblemReports } from './node-problem-reports.ts';

/** The Warning Event a node's problem becomes, on the Node itself. */
describe('NodeProblemReports: the Event on the Node', () => {
  const nodes = new Map<string, KubeObject>([['worker-1', { metadata: { name: 'worker-1', uid: 'uid-1', resourceVersion: '1' } }]]);
  const problem = { node: 'worker-1', reason: 'NodeInventoryUnavailable', message: 'node worker-1 has no usable SriovNetworkNodeState inventory' } as const;

  it('records a Warning regarding the Node, with the problem’s reason and message', () => {
    const recorded: [ObjectReference, EventRecord][] = [];
    const recorder = {
      record: (regarding: ObjectReference, event: EventRecord) => {
        recorded.push([regarding, event]);
        return Promise.resolve();
      },
    } as unknown as EventRecorder;
    new NodeProblemReports().report([problem], nodes, recorder);
    expect(recorded).toEqual([
      [
        { apiVersion: 'v1', kind: 'Node', name: 'worker-1', uid: 'uid-1' },
        { type: 'Warning', reason: 'NodeInventoryUnavailable', action: 'Reconcile', note: 'node worker-1 has no usable SriovNetworkNodeState inventory' },
      ],
    ]);
  });

  it('records nothing without a recorder, and still reports the problem once one is given', () => {
    const reports = new NodeProblemReports();
    expect(reports.report([problem], nodes, undefined)).toBe(0);
    const recorder = { record: () => Promise.resolve() } as unknown as EventRecorder;
    expect(reports.report([problem], nodes, recorder)).toBe(1);
  });
});
