import { describe, expect, it } from '@jest/globals';
import { cronProblem, nextFireTime } from '../src/cron.js';

describe('cron expressions', () => {
  it('accept 5 fields and 6 with seconds, in a time zone', () => {
    expect(cronProblem('0 9 * * 1-5')).toBeUndefined();
    expect(cronProblem('*/2 * * * * *')).toBeUndefined();
    expect(cronProblem('0 9 * * *', 'America/Chicago')).toBeUndefined();
    const after = new Date('2026-01-01T00:00:01.000Z');
    expect(nextFireTime('*/2 * * * * *', null, after)?.toISOString()).toBe(
      '2026-01-01T00:00:02.000Z',
    );
    // 09:00 in Paris is 08:00 UTC in winter.
    expect(nextFireTime('0 9 * * *', 'Europe/Paris', after)?.toISOString()).toBe(
      '2026-01-01T08:00:00.000Z',
    );
  });

  it('say what is wrong, naming the field', () => {
    expect(cronProblem('')).toMatchObject({ field: 'cron' });
    expect(cronProblem(42)).toMatchObject({ field: 'cron' });
    expect(cronProblem('* * *')?.message).toContain('has 3 fields');
    expect(cronProblem('0 25 * * *')?.message).toContain('is not a cron expression');
    expect(cronProblem('0 0 30 2 *')?.message).toContain('never fires');
    expect(cronProblem('0 9 * * *', 'Nowhere/Land')).toMatchObject({ field: 'timezone' });
  });
});
