import { describe, expect, it } from '@jest/globals';
import { indentJson } from './json-indent.ts';

// Expected values are the output of Go's json.Indent(dst, src, "", "    ") (Go 1.26) for the same inputs.
describe('indentJson', () => {
  it('lays out nested containers, keeps empty ones closed and copies tokens verbatim', () => {
    const input = ' {"a" :[ ], "b":{ },"c":[1, [2,{"d":"x\\"y, {z}:\\u0041\\/"}], 123456789012345678901234567890, 1.50e+3]}';
    expect(indentJson(input, '    ')).toBe(
      [
        '{',
        '    "a": [],',
        '    "b": {},',
        '    "c": [',
        '        1,',
        '        [',
        '            2,',
        '            {',
        '                "d": "x\\"y, {z}:\\u0041\\/"',
        '            }',
        '        ],',
        '        123456789012345678901234567890,',
        '        1.50e+3',
        '    ]',
        '}',
      ].join('\n'),
    );
  });

  it('leaves an empty top-level container and a scalar as they are', () => {
    expect(indentJson('[]', '    ')).toBe('[]');
    expect(indentJson('\t"a b"', '    ')).toBe('"a b"');
  });

  it('keeps whitespace and brackets that sit inside strings', () => {
    expect(indentJson('{"k":"[ a, b ]: {\\\\"}', '  ')).toBe('{\n  "k": "[ a, b ]: {\\\\"\n}');
  });

  // Go rejects this text; the point here is only that invalid input cannot make the scan run forever.
  it('ends on an unterminated string instead of reading past the text', () => {
    expect(indentJson('{"a":"b\\', '  ')).toBe('{\n  "a": "b\\');
  });
});
