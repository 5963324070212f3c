import { describe, expect, it } from '@jest/globals';
import {
  codesOf,
  errorClass,
  ERROR_KINDS,
  httpStatus,
  isJunctionError,
  JunctionError,
  type ErrorCodes,
} from '../src/index.js';
import { HTTP_STATUS_BY_KIND } from '../src/http-status.js';

const CODES = {
  THING_NOT_FOUND: 'not_found',
  THING_INVALID: 'invalid',
} as const satisfies ErrorCodes;

class ThingError extends JunctionError<keyof typeof CODES> {
  constructor(code: keyof typeof CODES, message: string, details: Record<string, unknown> = {}) {
    super(code, CODES[code], message, details);
    this.name = 'ThingError';
  }
}

describe('the one error model', () => {
  it('gives an error its code, its kind from the table, its message, details and cause', () => {
    const cause = new Error('below');
    const err = new JunctionError(
      'THING_NOT_FOUND',
      'not_found',
      'No thing 7.',
      { id: 7 },
      { cause },
    );
    expect(err).toBeInstanceOf(Error);
    expect([err.code, err.kind, err.message, err.details, err.cause]).toEqual([
      'THING_NOT_FOUND',
      'not_found',
      'No thing 7.',
      { id: 7 },
      cause,
    ]);
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      code: 'THING_NOT_FOUND',
      message: 'No thing 7.',
      details: { id: 7 },
    });
    const thing = new ThingError('THING_INVALID', 'Bad thing.');
    expect([thing.name, thing.kind]).toEqual(['ThingError', 'invalid']);
  });

  it('makes a package’s error class from its table: kind by code, its name, details by default empty', () => {
    const ThingFailure = errorClass('ThingFailure', CODES);
    const err = new ThingFailure('THING_NOT_FOUND', 'No thing.');
    expect(err).toBeInstanceOf(JunctionError);
    expect(err).toBeInstanceOf(ThingFailure);
    expect([err.name, err.code, err.kind, err.details]).toEqual([
      'ThingFailure',
      'THING_NOT_FOUND',
      'not_found',
      {},
    ]);
    const cause = new Error('below');
    expect(new ThingFailure('THING_INVALID', 'x', { field: 'a' }, { cause }).cause).toBe(cause);
  });

  it('lists a table’s codes in the order they are declared', () => {
    expect(codesOf(CODES)).toEqual(['THING_NOT_FOUND', 'THING_INVALID']);
  });

  it('answers every kind with an HTTP status, and the few codes HTTP has its own status for', () => {
    expect(Object.keys(HTTP_STATUS_BY_KIND).sort()).toEqual([...ERROR_KINDS].sort());
    expect(httpStatus('MODEL_API_KEY_MISSING', 'misconfigured')).toBe(503);
    expect(httpStatus('THING_NOT_FOUND', 'not_found')).toBe(404);
    expect(httpStatus('METHOD_NOT_ALLOWED', 'invalid')).toBe(405);
    expect(httpStatus('UNSUPPORTED_MEDIA_TYPE', 'invalid')).toBe(415);
    expect(httpStatus('APPROVAL_EXPIRED', 'conflict')).toBe(410);
    expect(httpStatus('IDEMPOTENCY_KEY_REUSED', 'conflict')).toBe(422);
  });

  it('knows a Junction error by its shape, also one from another copy of a package', () => {
    expect(isJunctionError(new ThingError('THING_INVALID', 'x'))).toBe(true);
    // As a second copy of a package would make it: another class, the same shape.
    const copy = Object.assign(new Error('x'), {
      code: 'THING_INVALID',
      kind: 'invalid',
      details: {},
    });
    expect(isJunctionError(copy)).toBe(true);
    expect(
      isJunctionError(Object.assign(new Error('x'), { code: 'E', kind: 'network', details: {} })),
    ).toBe(false);
    expect(isJunctionError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isJunctionError({ code: 'THING_INVALID', kind: 'invalid', details: {} })).toBe(false);
  });
});
