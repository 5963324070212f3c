import { describe, expect, it } from '@jest/globals';
import {
  DURATION_FORMS,
  TIME_FORMS,
  parseDuration,
  parseFileDuration,
  parseTimePoint,
} from '../src/index.js';
import { MAX_DURATION_MS } from '../src/duration.js';

describe('the duration grammar', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5000],
    ['30s', 30_000],
    ['2m', 120_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['7d', 604_800_000],
    ['0s', 0],
    ['007m', 420_000],
    ['36500d', MAX_DURATION_MS],
    [`${MAX_DURATION_MS}ms`, MAX_DURATION_MS],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([
    ['', 'no number'],
    ['5', 'a bare number: seconds, minutes or milliseconds?'],
    ['s', 'no number'],
    ['1.5h', 'a fraction'],
    ['-1d', 'a sign'],
    ['+1d', 'a sign'],
    ['5 s', 'a space inside'],
    [' 5s', 'a space around'],
    ['5S', 'upper case'],
    ['2w', 'an unknown unit'],
    ['1y', 'an unknown unit'],
    ['1h30m', 'a compound'],
    ['PT5M', 'an ISO 8601 duration'],
    ['5sec', 'a spelled-out unit'],
    ['١٢s', 'digits other than 0-9'],
  ])('refuses %j (%s)', (text) => {
    expect(parseDuration(text)).toEqual({ ok: false, problem: 'not-a-duration' });
  });

  it.each(['36501d', `${MAX_DURATION_MS + 1}ms`, '876001h', `${'9'.repeat(20)}d`])(
    'refuses %j as longer than 36500d',
    (text) => {
      expect(parseDuration(text)).toEqual({ ok: false, problem: 'too-long' });
    },
  );

  it('names its forms in words for messages', () => {
    expect(DURATION_FORMS).toBe(
      'a whole number followed by ms, s, m, h or d (500ms, 5s, 2m, 1h, 7d)',
    );
    expect(TIME_FORMS).toBe(
      'an ISO 8601 time (2025-01-31T12:00:00Z) or a whole number followed by ms, s, m, h or d ' +
        '(500ms, 5s, 2m, 1h, 7d) meaning that long ago',
    );
  });
});

describe('the time grammar', () => {
  it.each([
    ['2025-01-31T12:00:00Z', '2025-01-31T12:00:00.000Z'],
    ['2025-01-31T12:00:00.250Z', '2025-01-31T12:00:00.250Z'],
    ['2025-01-31T14:00:00+02:00', '2025-01-31T12:00:00.000Z'],
    ['2025-01-31', '2025-01-31T00:00:00.000Z'],
  ])('reads the ISO 8601 time %j', (text, iso) => {
    const result = parseTimePoint(text);
    expect(result.ok && result.time instanceof Date && result.time.toISOString()).toBe(iso);
  });

  it.each([
    ['24h', 86_400_000],
    ['30s', 30_000],
    ['7d', 604_800_000],
  ])('reads the duration %j as that long ago', (text, agoMs) => {
    expect(parseTimePoint(text)).toEqual({ ok: true, time: { agoMs } });
  });

  it.each([
    ['yesterday', 'not-a-time'],
    ['2025', 'not-a-time'],
    ['1700000000000', 'not-a-time'],
    ['2025/01/31', 'not-a-time'],
    ['31-01-2025', 'not-a-time'],
    ['2025-01-31 12:00', 'not-a-time'],
    ['2025-13-45', 'not-a-date'],
    ['2025-01-31T25:00:00Z', 'not-a-date'],
    ['36501d', 'too-long'],
  ])('refuses %j (%s)', (text, problem) => {
    expect(parseTimePoint(text)).toEqual({ ok: false, problem });
  });
});

describe('parseFileDuration (workflow files)', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['2d', 172_800_000],
    ['PT5M', 300_000],
    ['P1DT2H', 93_600_000],
    ['pt0.5s', 500],
    ['90', 90_000],
    [' 5m ', 300_000],
    [2.5, 2500],
    [0, 0],
  ] as const)('reads %j as %d ms', (value, ms) => {
    expect(parseFileDuration(value)).toEqual({ ok: true, ms });
  });

  it.each([
    ['P'],
    ['PT'],
    ['P1DT'],
    ['5 s'],
    ['1y'],
    ['-5s'],
    [-1],
    [Number.NaN],
    [null],
    [true],
    [{}],
  ])('refuses %j', (value) => {
    expect(parseFileDuration(value)).toEqual({ ok: false, problem: 'not-a-duration' });
  });

  it('holds the same limit as what people type', () => {
    expect(parseFileDuration('36500d')).toEqual({ ok: true, ms: MAX_DURATION_MS });
    expect(parseFileDuration('36500d1ms')).toEqual({ ok: false, problem: 'too-long' });
    expect(parseFileDuration(MAX_DURATION_MS)).toEqual({ ok: false, problem: 'too-long' });
  });
});
