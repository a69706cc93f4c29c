// The validate command's copy of the chart's CRD schemas is the chart's.
import { describe, expect, it } from '@jest/globals';
import { CRD_SCHEMAS } from '../../src/validate/crd-schemas.ts';
import { chartSchemas } from './chart-schemas.ts';

describe('CRD_SCHEMAS', () => {
  it('is the openAPIV3Schema of each admitted kind in charts/sriov-dra/crds (else run test/validate/write-crd-schemas.ts)', () => {
    expect(CRD_SCHEMAS).toEqual(chartSchemas());
  });
});
