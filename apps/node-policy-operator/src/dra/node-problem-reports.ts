import type { EventRecorder, KubeObject } from '@sriov-dra/k8s';
import type { NodeProblem } from './dra-plan.ts';

/**
 * Which problem each Node was last reported with. A node's trouble is recorded as a Warning Event on the
 * Node when it appears or changes, not on every reconciliation while it lasts: the recorder would fold the
 * repeats into a series, but still write its count, and a steady state writes nothing. A Node whose trouble
 * is over, or that was recreated, is forgotten, so its next problem is reported afresh.
 */
export class NodeProblemReports {
  /** Node UID → the problem last recorded on it. */
  private readonly reported = new Map<string, string>();

  /** Records each problem of `problems` not already reported as it is; returns how many it recorded. */
  report(problems: readonly NodeProblem[], nodes: ReadonlyMap<string, KubeObject>, recorder: EventRecorder | undefined): number {
    const current = new Map<string, NodeProblem>();
    for (const problem of problems) {
      const node = nodes.get(problem.node);
      if (node !== undefined) current.set(node.metadata.uid, problem);
    }
    for (const uid of this.reported.keys()) if (!current.has(uid)) this.reported.delete(uid);
    if (recorder === undefined) return 0;
    let recorded = 0;
    for (const [uid, problem] of current) {
      const verdict = `${problem.reason}: ${problem.message}`;
      if (this.reported.get(uid) === verdict) continue;
      this.reported.set(uid, verdict);
      recorded += 1;
      void recorder.record(
        { apiVersion: 'v1', kind: 'Node', name: problem.node, uid },
        { type: 'Warning', reason: problem.reason, action: 'Reconcile', note: problem.message },
      );
    }
    return recorded;
  }
}
