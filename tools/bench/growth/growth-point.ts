// What a growth report is made of: measured costs of one workload, each as (x, y) points along an axis
// such as "live shadows".

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface CostSeries {
  /** What was measured, e.g. "etcd database size". */
  readonly cost: string;
  /** The unit of y, e.g. "MiB". */
  readonly unit: string;
  /** What x counts, e.g. "live shadows"; series on the same axis share a chart and a table. */
  readonly axis: string;
  readonly points: readonly Point[];
}
