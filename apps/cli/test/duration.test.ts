import { describe, expect, it } from '@jest/globals';
import { formatAgo, formatDuration, parseDuration } from '../src/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['7d', 604_800_000],
    ['0s', 0],
    [' 30d ', 2_592_000_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text, '--period')).toBe(ms);
  });

  it.each([
    '',
    '5',
    's',
    '1.5h',
    '-1d',
    '5 s',
    '5S',
    '2w',
    '1h30m',
    '36501d',
    '9'.repeat(20) + 'd',
  ])('refuses %j with INVALID_ARGUMENT naming the flag and the accepted forms', (text) => {
    expect(() => parseDuration(text, '--older-than')).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining(
          '--older-than must be a whole number followed by ms, s, m, h or d (500ms, 5s, 2m, 1h, 7d)',
        ),
        details: { flag: '--older-than', value: text },
      }),
    );
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [850, '850ms'],
    [4230, '4.2s'],
    [42_000, '42s'],
    [125_000, '2m05s'],
    [3_720_000, '1h02m'],
    [273_600_000, '3d04h'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatAgo', () => {
  const now = new Date('2026-03-10T12:00:00.000Z');
  const ago = (ms: number): string => formatAgo(new Date(now.getTime() - ms), now);
  it('is relative within a week and ISO beyond', () => {
    expect(ago(0)).toBe('just now');
    expect(ago(12_000)).toBe('12s ago');
    expect(ago(5 * 60_000)).toBe('5m ago');
    expect(ago(3 * 3_600_000)).toBe('3h ago');
    expect(ago(2 * 86_400_000 + 5)).toBe('2d ago');
    expect(ago(8 * 86_400_000)).toBe('2026-03-02T12:00:00Z');
  });
});
