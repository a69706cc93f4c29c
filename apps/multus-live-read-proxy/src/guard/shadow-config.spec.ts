import { describe, expect, it } from '@jest/globals';
import type { BindingAnnotationV1 } from '@sriov-dra/contract';
import { checkShadowConfig } from './shadow-config.ts';

// "{}" and its SHA-256 as `printf '{}' | sha256sum` prints it.
const CONFIG = '{}';
const CONFIG_SHA256 = '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a';

const binding = { configSHA256: CONFIG_SHA256 } as BindingAnnotationV1;
const shadow = (config: unknown) => ({ metadata: { name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa', namespace: 'ai-workloads' }, spec: { config } });

describe('checkShadowConfig', () => {
  it('returns the configuration whose bytes hash to the bound digest', () => {
    expect(checkShadowConfig(shadow(CONFIG), binding)).toEqual({ ok: true, value: CONFIG });
  });

  it('refuses an empty config even when the binding carries the digest of empty text', () => {
    // `printf '' | sha256sum`
    const empty = { configSHA256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' } as BindingAnnotationV1;
    const result = checkShadowConfig(shadow(''), empty);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.detail]).toEqual(['ManagedShadowMismatch', 'has no inline spec.config']);
  });

  it.each([
    ['a whitespace edit', '{ }'],
    ['a trailing newline', '{}\n'],
    ['an empty config', ''],
    ['no config', undefined],
    ['a decoded object instead of text', {}],
  ])('refuses %s, naming the shadow', (_case, config) => {
    const result = checkShadowConfig(shadow(config), binding);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.object]).toEqual([
      'ManagedShadowMismatch',
      { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa' },
    ]);
  });
});

describe('checkShadowConfig without a spec', () => {
  it('refuses a shadow that has no spec', () => {
    const result = checkShadowConfig({ metadata: { name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa', namespace: 'ai-workloads' } }, binding);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.detail]).toEqual(['ManagedShadowMismatch', 'has no inline spec.config']);
  });
});
