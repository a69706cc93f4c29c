// The shared render fixtures: source NAD + allocated PCI → the exact shadow bytes and SHA-256, computed
// independently when the fixtures were written.
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { expectedError, expectsValid, loadFixtures } from '@sriov-dra/contract/fixtures';
import { type SourceNad, renderShadowConfig } from '../src/shadow-config.ts';

interface RenderInput {
  readonly sourceNad: SourceNad;
  readonly pciAddress: string;
}

const fixtures = loadFixtures('render');

describe('render fixtures', () => {
  it('cover at least 30 cases, accepted and rejected', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(30);
    expect(fixtures.some(expectsValid) && fixtures.some((fixture) => !expectsValid(fixture))).toBe(true);
  });

  it.each(fixtures.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const input = fixture.input as RenderInput;
    const result = renderShadowConfig(input.sourceNad, input.pciAddress);
    if (!expectsValid(fixture)) {
      expect(result.ok ? 'rendered' : result.error.code).toBe(expectedError(fixture));
      return;
    }
    if (!result.ok) throw result.error;
    expect(result.value).toEqual({
      bytes: fixture.expect['bytes'],
      sha256: fixture.expect['sha256'],
      effectiveName: fixture.expect['effectiveName'],
      pluginIndex: fixture.expect['pluginIndex'],
      pluginType: fixture.expect['pluginType'],
    });
    expect(createHash('sha256').update(result.value.bytes, 'utf8').digest('hex')).toBe(result.value.sha256);
    // The frozen bytes render to themselves.
    const again = renderShadowConfig({ metadata: input.sourceNad.metadata, spec: { config: result.value.bytes } }, input.pciAddress);
    expect(again.ok && again.value.bytes).toBe(result.value.bytes);
  });
});
