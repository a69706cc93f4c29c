import type { CheckStatus, PreflightCheck } from './checks.ts';

export type ReportFormat = 'text' | 'json';

export interface PreflightReport {
  readonly config: string;
  readonly nodeName: string | undefined;
  readonly checks: readonly PreflightCheck[];
}

function count(checks: readonly PreflightCheck[], status: CheckStatus): number {
  return checks.filter((check) => check.status === status).length;
}

/** The report as a person reads it (one line per check) or as a script reads it (one JSON document). */
export function formatReport(report: PreflightReport, format: ReportFormat): string {
  const summary = { pass: count(report.checks, 'pass'), warn: count(report.checks, 'warn'), fail: count(report.checks, 'fail') };
  if (format === 'json') {
    return `${JSON.stringify({ config: report.config, nodeName: report.nodeName ?? null, ok: summary.fail === 0, summary, checks: report.checks }, null, 2)}\n`;
  }
  const width = Math.max(...report.checks.map((check) => check.id.length));
  const lines = report.checks.map((check) => `${check.status.toUpperCase().padEnd(4)}  ${check.id.padEnd(width)}  ${check.message}`);
  const node = report.nodeName === undefined ? '' : ` on node ${report.nodeName}`;
  const verdict = summary.fail === 0 ? 'ready' : 'NOT ready: fix every FAIL, then run preflight again';
  return [
    `multus-live-read-proxy preflight for ${report.config}${node}`,
    ...lines,
    `${String(summary.pass)} passed, ${String(summary.warn)} warnings, ${String(summary.fail)} failed: ${verdict}`,
    '',
  ].join('\n');
}
