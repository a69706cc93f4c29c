import { describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { type ApiErrorKind, KubeApiError, classifyStatus, classifyTransportError, isTransient } from './api-errors.ts';

const request = { method: 'PATCH', path: '/api/v1/namespaces/n/pods/p' };

describe('API error classification', () => {
  it.each([
    [400, undefined, 'BadRequest'],
    [401, undefined, 'Unauthorized'],
    [403, { reason: 'Forbidden' }, 'Forbidden'],
    [404, { reason: 'NotFound' }, 'NotFound'],
    [409, { reason: 'AlreadyExists' }, 'AlreadyExists'],
    [409, { reason: 'Conflict' }, 'Conflict'],
    [410, { reason: 'Expired' }, 'Gone'],
    [422, { reason: 'Invalid' }, 'Invalid'],
    [429, { reason: 'TooManyRequests' }, 'TooManyRequests'],
    [500, { reason: 'InternalError' }, 'ServerError'],
    [500, { reason: 'ServerTimeout' }, 'Timeout'],
    [503, { reason: 'ServiceUnavailable' }, 'Unavailable'],
    [504, { reason: 'Timeout' }, 'Timeout'],
  ] as const)('HTTP %i %j is %s', (status, apiStatus, kind) => {
    expect(classifyStatus(status, apiStatus)).toBe(kind);
  });

  it('ignores messages: a Conflict worded like AlreadyExists stays a Conflict', () => {
    expect(classifyStatus(409, { reason: 'Conflict', message: 'already exists' })).toBe('Conflict');
  });

  it('marks a write whose reply was lost as outcome-unknown, and a refused connection as not sent', () => {
    const reset = classifyTransportError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), request, true);
    expect([reset.kind, reset.outcomeUnknown]).toEqual(['Unavailable', true]);
    const refused = classifyTransportError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), request, false);
    expect([refused.kind, refused.outcomeUnknown]).toEqual(['Unavailable', false]);
    const timeout = classifyTransportError(Object.assign(new Error('aborted'), { name: 'AbortError' }), { method: 'GET', path: '/' }, true);
    expect([timeout.kind, timeout.outcomeUnknown]).toEqual(['Timeout', false]);
  });

  it('retries only what a retry can fix', () => {
    expect(isTransient(new KubeApiError('Timeout', 504, request))).toBe(true);
    expect(isTransient(new KubeApiError('TooManyRequests', 429, request))).toBe(true);
    expect(isTransient(new KubeApiError('Forbidden', 403, request))).toBe(false);
    expect(isTransient(new KubeApiError('Invalid', 422, request))).toBe(false);
    expect(isTransient(new Error('other'))).toBe(false);
  });

  it('is a SriovDraError whose stable code names the failure class and whose message names the object', () => {
    const error = new KubeApiError('Forbidden', 403, { ...request, object: { kind: 'Pod', namespace: 'n', name: 'p' } }, { message: 'pods "p" is forbidden' });
    expect(isSriovDraError(error, 'ApiForbidden')).toBe(true);
    expect(error.message).toMatch(/^ApiForbidden: Pod n\/p: PATCH \/api\/v1\/namespaces\/n\/pods\/p \(HTTP 403\): pods "p" is forbidden \u2014 /);
    const kinds: ApiErrorKind[] = [
      'BadRequest',
      'Unauthorized',
      'Forbidden',
      'NotFound',
      'AlreadyExists',
      'Conflict',
      'Gone',
      'Invalid',
      'TooManyRequests',
      'Timeout',
      'ServerError',
      'Unavailable',
    ];
    expect(kinds.map((kind) => new KubeApiError(kind, 0, request).code)).toEqual(kinds.map((kind) => `Api${kind}`));
  });
});
