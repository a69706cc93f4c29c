import { stringify } from 'yaml';
import type { Output } from './command-io.ts';

/** kubectl's -o values this CLI prints: its default table, the table with more columns, JSON and YAML. */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/** A boolean as a table cell. */
export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** Columns padded to their widest cell, two spaces apart, as kubectl prints them. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

/** Writes `data` as -o asks: JSON or YAML of the data itself, or the command's table (wide or not). */
export function writeOutput(out: Output, format: OutputFormat, data: unknown, table: (wide: boolean) => string): void {
  if (format === 'json') out.write(`${JSON.stringify(data, null, 2)}\n`);
  else if (format === 'yaml') out.write(stringify(data));
  else out.write(table(format === 'wide'));
}
