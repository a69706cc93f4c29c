import { describe, expect, it } from '@jest/globals';
import type { EventRecord, EventRecorder, KubeObject, ObjectReference } from '@sriov-dra/k8s';
import type { NodeProblem } from './dra-plan.ts';
import { NodeProblemReports } from './node-problem-reports.ts';

/** Keeps what it is asked to record: the recorder's own behaviour is tested in libs/k8s. */
function keepingRecorder(): { recorder: EventRecorder; recorded: [string, string][] } {
  const recorded: [string, string][] = [];
  const recorder = {
    record(regarding: ObjectReference, event: EventRecord): Promise<void> {
      recorded.push([regarding.uid, event.reason]);
      return Promise.resolve();
    },
  } as unknown as EventRecorder;
  return { recorder, recorded };
}

const node = (name: string, uid: string): KubeObject => ({ metadata: { name, uid, resourceVersion: '1' } });
const unavailable = (name: string, message = 'no inventory'): NodeProblem => ({ node: name, reason: 'NodeInventoryUnavailable', message });

describe('NodeProblemReports', () => {
  it('records a node’s problem when it appears or changes, not while it lasts, and again once it recurs', () => {
    const { recorder, recorded } = keepingRecorder();
    const reports = new NodeProblemReports();
    const nodes = new Map([['worker-1', node('worker-1', 'uid-1')]]);
    expect(reports.report([unavailable('worker-1')], nodes, recorder)).toBe(1);
    expect(reports.report([unavailable('worker-1')], nodes, recorder)).toBe(0);
    expect(reports.report([{ node: 'worker-1', reason: 'NodeNotSelectable', message: 'no hostname label' }], nodes, recorder)).toBe(1);
    expect(reports.report([], nodes, recorder)).toBe(0);
    expect(reports.report([{ node: 'worker-1', reason: 'NodeNotSelectable', message: 'no hostname label' }], nodes, recorder)).toBe(1);
    expect(recorded).toEqual([
      ['uid-1', 'NodeInventoryUnavailable'],
      ['uid-1', 'NodeNotSelectable'],
      ['uid-1', 'NodeNotSelectable'],
    ]);
  });

  it('reports a node recreated under the same name afresh, and nothing for a node no longer there', () => {
    const { recorder, recorded } = keepingRecorder();
    const reports = new NodeProblemReports();
    reports.report([unavailable('worker-1')], new Map([['worker-1', node('worker-1', 'uid-1')]]), recorder);
    reports.report([unavailable('worker-1'), unavailable('gone')], new Map([['worker-1', node('worker-1', 'uid-2')]]), recorder);
    expect(recorded).toEqual([
      ['uid-1', 'NodeInventoryUnavailable'],
      ['uid-2', 'NodeInventoryUnavailable'],
    ]);
  });
});
