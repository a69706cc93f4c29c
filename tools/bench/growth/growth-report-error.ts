/** Input a growth report cannot be written from; names the report (and series) and what to fix. */
export type GrowthReportCode = 'InvalidReportName' | 'NoSeries' | 'EmptySeries' | 'NonFiniteValue';

const REMEDIES: Readonly<Record<GrowthReportCode, string>> = {
  InvalidReportName: 'use letters, digits, dots, dashes and underscores, starting with a letter or digit',
  NoSeries: 'pass at least one measured series',
  EmptySeries: 'measure the cost at least once, or leave the series out',
  NonFiniteValue: 'a measurement failed or divided by zero; check the benchmark that produced it',
};

export class GrowthReportError extends Error {
  override readonly name = 'GrowthReportError';
  readonly code: GrowthReportCode;
  /** The report, or `report: cost` for one series. */
  readonly subject: string;

  constructor(code: GrowthReportCode, subject: string, detail: string) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`);
    this.code = code;
    this.subject = subject;
  }
}
