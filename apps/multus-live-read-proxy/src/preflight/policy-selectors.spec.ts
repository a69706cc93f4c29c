import { describe, expect, it } from '@jest/globals';
import { labelsSelected, nodeSelected } from './policy-selectors.ts';
import { templateNeeds } from './source-templates.ts';

const LABELS = { 'kubernetes.io/hostname': 'worker-a', rail: 'a', cores: '64' };

describe('nodeSelected', () => {
  const term = (key: string, operator: string, values?: string[]) => ({
    nodeSelectorTerms: [{ matchExpressions: [{ key, operator, ...(values === undefined ? {} : { values }) }] }],
  });

  it.each<[string, ReturnType<typeof term> | null | undefined, boolean]>([
    ['no selector', undefined, true],
    ['a null selector', null, true],
    ['In the value', term('kubernetes.io/hostname', 'In', ['worker-a']), true],
    ['In other values', term('kubernetes.io/hostname', 'In', ['worker-b']), false],
    ['NotIn the value', term('rail', 'NotIn', ['a']), false],
    ['NotIn on a missing label', term('zone', 'NotIn', ['x']), true],
    ['Exists', term('rail', 'Exists'), true],
    ['DoesNotExist', term('rail', 'DoesNotExist'), false],
    ['Gt below', term('cores', 'Gt', ['32']), true],
    ['Lt below', term('cores', 'Lt', ['32']), false],
    ['Gt on a missing label', term('memory', 'Gt', ['1']), false],
  ])('%s', (_case, selector, expected) => {
    expect(nodeSelected(selector as never, LABELS)).toBe(expected);
  });

  it('ORs terms, ANDs a term’s expressions, and selects nothing with an empty term', () => {
    const selector = {
      nodeSelectorTerms: [
        { matchExpressions: [] },
        {
          matchExpressions: [
            { key: 'rail', operator: 'In' as const, values: ['a'] },
            { key: 'cores', operator: 'Gt' as const, values: ['100'] },
          ],
        },
      ],
    };
    expect(nodeSelected(selector, LABELS)).toBe(false);
    expect(
      nodeSelected({ nodeSelectorTerms: [...selector.nodeSelectorTerms, { matchExpressions: [{ key: 'rail', operator: 'Exists' as const }] }] }, LABELS),
    ).toBe(true);
  });
});

describe('labelsSelected', () => {
  it('ANDs matchLabels and matchExpressions; an empty selector selects everything', () => {
    expect(labelsSelected({}, LABELS)).toBe(true);
    expect(labelsSelected({ matchLabels: { rail: 'a' } }, LABELS)).toBe(true);
    expect(labelsSelected({ matchLabels: { rail: 'b' } }, LABELS)).toBe(false);
    expect(labelsSelected({ matchLabels: { rail: 'a' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, LABELS)).toBe(false);
  });
});

describe('templateNeeds', () => {
  it('reads each plugin’s IPAM: its type, host-local’s dataDir and whereabouts’ kubeconfig and configuration file', () => {
    const config = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'rail',
      plugins: [
        {
          type: 'sriov',
          ipam: { type: 'whereabouts', range: '192.0.2.0/24', kubernetes: { kubeconfig: '/etc/wb.kubeconfig' }, configuration_path: '/etc/wb.conf' },
        },
        { type: 'tuning' },
      ],
    });
    expect(templateNeeds(config)).toEqual({
      ipamTypes: ['whereabouts'],
      hostLocalDataDirs: [],
      whereaboutsConfigs: [{ kubeconfig: '/etc/wb.kubeconfig', configurationPath: '/etc/wb.conf' }],
    });
  });

  it('reads a single-plugin configuration and host-local’s dataDir', () => {
    expect(templateNeeds(JSON.stringify({ type: 'sriov', ipam: { type: 'host-local', dataDir: '/var/lib/rail' } }))).toEqual({
      ipamTypes: ['host-local'],
      hostLocalDataDirs: ['/var/lib/rail'],
      whereaboutsConfigs: [],
    });
  });
});
