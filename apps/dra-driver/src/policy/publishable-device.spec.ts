import { describe, expect, it } from '@jest/globals';
import { DRIVER_NAME, type DeviceAttributeValue } from '@sriov-dra/contract';
import { buildPublishableDevice } from './publishable-device.ts';

const DEVICE = { pool: 'worker-a', name: '0000-3b-01-0', capacity: {} };

function build(attributes: Record<string, DeviceAttributeValue>, capacity: Record<string, { value: string }> = {}, listAttributes = false) {
  return buildPublishableDevice({ ...DEVICE, capacity }, attributes, { listAttributes });
}

/** What a refusal says: its code, the device it names, its detail and, where it differs from the code's, its remedy. */
function refusal(result: ReturnType<typeof build>) {
  if (result.ok) throw new Error('expected a refusal');
  return { code: result.error.code, object: result.error.object, detail: result.error.detail, remedy: result.error.remedy };
}

const device = { kind: 'Device', name: 'worker-a/0000-3b-01-0' };

describe('buildPublishableDevice', () => {
  it('qualifies bare names with the driver domain and keeps capacities', () => {
    expect(build({ vfID: { int: 0 }, 'example.com/rail': { string: 'a' } }, { 'example.com/queues': { value: '8' } })).toEqual({
      ok: true,
      value: {
        name: '0000-3b-01-0',
        attributes: { [`${DRIVER_NAME}/vfID`]: { int: 0 }, 'example.com/rail': { string: 'a' } },
        capacity: { 'example.com/queues': { value: '8' } },
      },
    });
  });

  it('refuses an attribute name that is not a DRA qualified name, quoting it', () => {
    expect(refusal(build({ 'bad name': { int: 1 } }))).toMatchObject({
      code: 'InvalidDeviceAttributes',
      object: device,
      detail: 'attribute name "bad name" is not a DRA qualified name',
    });
  });

  it('quotes at most 80 characters of a long name', () => {
    const long = `${'x'.repeat(90)} y`;
    expect(refusal(build({ [long]: { int: 1 } })).detail).toBe(`attribute name "${'x'.repeat(80)}…" is not a DRA qualified name`);
    const eighty = `${'x'.repeat(78)} y`;
    expect(refusal(build({ [eighty]: { int: 1 } })).detail).toBe(`attribute name "${eighty}" is not a DRA qualified name`);
  });

  it('refuses a name given twice, bare and qualified', () => {
    expect(refusal(build({ vfID: { int: 1 }, [`${DRIVER_NAME}/vfID`]: { int: 1 } }))).toMatchObject({
      object: device,
      detail: `attribute ${DRIVER_NAME}/vfID is given twice`,
    });
  });

  it('checks capacity names like attribute names', () => {
    expect(refusal(build({}, { 'bad name': { value: '1' } }))).toMatchObject({
      object: device,
      detail: 'capacity name "bad name" is not a DRA qualified name',
    });
    expect(refusal(build({}, { queues: { value: '1' }, [`${DRIVER_NAME}/queues`]: { value: '1' } }))).toMatchObject({
      detail: `capacity ${DRIVER_NAME}/queues is given twice`,
    });
  });

  it('refuses an attribute without exactly one valid value member, naming it', () => {
    const refused = refusal(build({ 'example.com/bad': { int: 1, string: 'two' } }));
    expect(refused).toMatchObject({ code: 'InvalidDeviceAttributes', object: device });
    expect(refused.detail).toMatch(/^attribute example\.com\/bad: \S/);
  });

  it('refuses a list value where the cluster does not serve lists, and says how to enable them', () => {
    expect(refusal(build({ 'example.com/list': { ints: [1] } }))).toEqual({
      code: 'InvalidDeviceAttributes',
      object: device,
      detail: 'attribute example.com/list has a list value (ints), which this cluster does not serve',
      remedy: 'use a scalar value, or enable the DRAListTypeAttributes feature gate on the API server and scheduler and allow list attributes in the driver',
    });
    expect(build({ 'example.com/list': { ints: [1] } }, {}, true).ok).toBe(true);
  });

  it.each([
    ['0', true],
    ['8', true],
    ['100', true],
    ['999999999999999999', true],
    ['1000', false],
    ['1000000000000000000', false],
    ['1k', false],
    ['08', false],
    ['-1', false],
    ['', false],
    ['1 ', false],
    ['8x8', false],
  ])('accepts capacity %p only as a canonical integer quantity: %p', (value, accepted) => {
    const result = build({}, { 'example.com/queues': { value } });
    if (accepted) expect(result.ok).toBe(true);
    else
      expect(refusal(result)).toMatchObject({
        object: device,
        detail: `capacity example.com/queues value ${JSON.stringify(value)} is not a canonical integer quantity`,
      });
  });

  it('refuses a device over the attribute budget, counting capacities too', () => {
    const attributes = Object.fromEntries(Array.from({ length: 31 }, (_, index) => [`example.com/a${String(index)}`, { int: index }]));
    expect(build(attributes, { 'example.com/queues': { value: '1' } }).ok).toBe(true);
    expect(refusal(build(attributes, { 'example.com/queues': { value: '1' }, 'example.com/rings': { value: '2' } }))).toMatchObject({
      code: 'AttributeBudgetExceeded',
      object: device,
    });
  });
});
