// The generated documentation pages and the inputs they come from: the charts' schemas and defaults, each
// binary's --help, and the contract's error catalog.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ERROR_CODES, describeErrorCode } from '@sriov-dra/contract';
import { type SchemaNode, mergeDefaults, valueRows } from './chart-values-reference.ts';
import { type CommandHelp, collectCommandHelp } from './command-help.ts';
import { type ChartSection, renderConfigurationReference, renderErrorCodeReference } from './configuration-reference.ts';

const UMBRELLA = 'charts/sriov-dra';

const COMPONENT_SUMMARIES: Readonly<Record<string, string>> = {
  'dra-driver': 'The node DRA driver (DaemonSet).',
  'multus-live-read-proxy': 'The Multus daemon and its shim (DaemonSet).',
  'node-policy-operator': 'The node-policy operator and its admission webhook (Deployments).',
};

const readJson = (file: string): SchemaNode => JSON.parse(fs.readFileSync(file, 'utf8')) as SchemaNode;
const readYaml = (file: string): unknown => parseYaml(fs.readFileSync(file, 'utf8')) as unknown;

export function chartSections(root: string): ChartSection[] {
  const umbrellaSchema = readJson(path.join(root, UMBRELLA, 'values.schema.json'));
  const umbrellaValues = readYaml(path.join(root, UMBRELLA, 'values.yaml')) as Record<string, unknown>;
  const globalSchema = umbrellaSchema.properties?.['global'];
  const sections: ChartSection[] = [];
  if (globalSchema !== undefined) {
    sections.push({ chart: 'global', summary: 'Read by every component.', rows: valueRows(globalSchema, umbrellaValues['global'], 'global.') });
  }
  const components = fs.readdirSync(path.join(root, UMBRELLA, 'charts')).sort();
  for (const component of components) {
    const dir = path.join(root, UMBRELLA, 'charts', component);
    const defaults = mergeDefaults(readYaml(path.join(dir, 'values.yaml')), umbrellaValues[component]);
    const rows = valueRows(readJson(path.join(dir, 'values.schema.json')), defaults, `${component}.`, new Set(['global']));
    sections.push({ chart: component, summary: COMPONENT_SUMMARIES[component] ?? '', rows });
  }
  return sections;
}

export const CONFIGURATION_PAGE = 'docs/configuration.md';
export const ERROR_CODES_PAGE = 'docs/error-codes.md';

/** Page path → content, as `npm run docs` writes them. `commands` lets a caller reuse help it already ran. */
export function generatedPages(root: string, commands: readonly CommandHelp[] = collectCommandHelp(root)): Map<string, string> {
  const errorCodes = ERROR_CODES.map((code) => ({ code, ...describeErrorCode(code) }));
  return new Map([
    [CONFIGURATION_PAGE, renderConfigurationReference(chartSections(root), commands)],
    [ERROR_CODES_PAGE, renderErrorCodeReference(errorCodes)],
  ]);
}
