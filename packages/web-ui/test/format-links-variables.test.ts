// How the pages write durations, money and ids, where runs and traces link in each mode, and
// how the start-a-run form reads its variables.
import { describe, expect, it } from '@jest/globals';
import { formatCost, formatDuration, formatTime, prettyJson, shortTraceId } from '../app/format.js';
import { baseUrl, createLinks } from '../app/links.js';
import { traceQuery } from '../app/trace-search.js';
import { parseVariables } from '../app/variables.js';

describe('format', () => {
  it.each([
    [null, '—'],
    [0.42, '0.42 ms'],
    [12.5, '12.5 ms'],
    [312.4, '312 ms'],
    [1250, '1.25 s'],
    [125_000, '2 min 5 s'],
    [3_900_000, '1 h 5 min'],
  ])('duration %p is %p', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([
    [null, '—'],
    [undefined, '—'],
    [0, '$0.00'],
    [0.0012, '$0.0012'],
    [0.00001, '< $0.0001'],
    [3.456, '$3.46'],
  ])('cost %p is %p', (usd, text) => {
    expect(formatCost(usd)).toBe(text);
  });

  it('shortens trace ids for headings and formats times in the given locale', () => {
    expect(shortTraceId('8ce8eb6f0a5c433d8ae1161808144d11')).toBe('8ce8eb6f…');
    expect(formatTime('2026-11-22T02:44:59.704Z', 'en-GB')).toMatch(/22 Nov 2026/);
    expect(formatTime(null)).toBe('—');
  });

  it('pretty-prints JSON values and strings that hold JSON', () => {
    expect(prettyJson({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(prettyJson('[1]')).toBe('[\n  1\n]');
    expect(prettyJson('plain {text')).toBe('plain {text');
  });
});

describe('links', () => {
  const base = { version: '1', viewer_url: null, dashboard_url: null };

  it('links runs and traces inside the dashboard, and to the viewer when it has an address', () => {
    const links = createLinks({
      ...base,
      mode: 'dashboard',
      viewer_url: 'http://127.0.0.1:16686/',
    });
    expect(links.run(12)).toBe('#/runs/12');
    expect(links.trace('abc')).toBe('#/traces/abc');
    expect(links.viewerTrace('abc')).toBe('http://127.0.0.1:16686/#/traces/abc');
  });

  it('links runs from the viewer to the dashboard only when it knows the dashboard', () => {
    expect(createLinks({ ...base, mode: 'viewer' }).run(12)).toBeNull();
    const links = createLinks({ ...base, mode: 'viewer', dashboard_url: 'http://10.0.0.5:8585' });
    expect(links.run(12)).toBe('http://10.0.0.5:8585/ui/#/runs/12');
    expect(links.viewerTrace('abc')).toBeNull();
  });

  it('accepts only http(s) addresses from the config', () => {
    expect(baseUrl('javascript:alert(1)')).toBeNull();
    expect(baseUrl('not a url')).toBeNull();
    expect(baseUrl('https://junction.example:8585/')).toBe('https://junction.example:8585');
  });
});

describe('trace search query', () => {
  it('turns the time range into since and passes only known statuses', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(
      traceQuery({ range: '1h', status: 'error', service: 'junction', run_id: '12' }, now),
    ).toEqual({
      service: 'junction',
      operation: undefined,
      run_id: '12',
      status: 'error',
      since: '2026-01-01T11:00:00.000Z',
      limit: 50,
    });
    expect(traceQuery({ status: 'weird' }, now)).toMatchObject({
      status: undefined,
      since: undefined,
    });
  });
});

describe('parseVariables', () => {
  it('reads KEY=value lines, keeping = and spaces in values and skipping blanks and comments', () => {
    expect(parseVariables('city=Paris\n\n# a comment\n  query = a=b c \r\nempty=')).toEqual({
      ok: true,
      variables: { city: 'Paris', query: ' a=b c ', empty: '' },
    });
  });

  it('names the line of a malformed entry', () => {
    expect(parseVariables('a=1\nnonsense')).toEqual({
      ok: false,
      message: 'Variables line 2 has no "=": write KEY=value.',
    });
    expect(parseVariables('=x')).toMatchObject({
      ok: false,
      message: expect.stringContaining('line 1'),
    });
    expect(parseVariables('a=1\na=2')).toMatchObject({
      ok: false,
      message: expect.stringContaining('twice'),
    });
  });
});
