import { describe, expect, it } from '@jest/globals';
import { DEFAULT_DRAIN_SECONDS, logFormatOf } from '../src/env-settings.js';
import { ServiceError, drainSecondsOf, packageVersion } from '../src/index.js';

describe('drainSecondsOf', () => {
  it('is 10 when JUNCTION_DRAIN_SECONDS is unset or blank, else the whole number it holds', () => {
    expect(drainSecondsOf({})).toBe(DEFAULT_DRAIN_SECONDS);
    expect(drainSecondsOf({ JUNCTION_DRAIN_SECONDS: '  ' })).toBe(10);
    expect(drainSecondsOf({ JUNCTION_DRAIN_SECONDS: '0' })).toBe(0);
    expect(drainSecondsOf({ JUNCTION_DRAIN_SECONDS: ' 3600 ' })).toBe(3600);
  });

  it.each(['ten', '-1', '1.5', '3601', '1e3', '00010'])(
    'refuses %j with SETTING_INVALID naming the variable',
    (value) => {
      const failure = (() => {
        try {
          return drainSecondsOf({ JUNCTION_DRAIN_SECONDS: value });
        } catch (err) {
          return err;
        }
      })();
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({
        code: 'SETTING_INVALID',
        message: `JUNCTION_DRAIN_SECONDS must be a whole number of seconds from 0 to 3600; got ${JSON.stringify(value)}.`,
        details: { variable: 'JUNCTION_DRAIN_SECONDS' },
      });
    },
  );

  it('quotes at most 40 characters of a bad value', () => {
    expect(() => drainSecondsOf({ JUNCTION_DRAIN_SECONDS: 'x'.repeat(500) })).toThrow(
      `got "${'x'.repeat(40)}".`,
    );
  });
});

describe('logFormatOf', () => {
  it('is JSON lines unless JUNCTION_LOG_FORMAT is set, then the loaded config decides', () => {
    expect(logFormatOf({}, { log_format: 'text' })).toBe('json');
    expect(logFormatOf({ JUNCTION_LOG_FORMAT: ' ' }, { log_format: 'text' })).toBe('json');
    expect(logFormatOf({ JUNCTION_LOG_FORMAT: 'text' }, { log_format: 'text' })).toBe('text');
  });
});

describe('packageVersion', () => {
  it('reads the version of the package.json it is pointed at', () => {
    expect(packageVersion(new URL('../package.json', import.meta.url))).toBe('0.1.0');
  });
});
