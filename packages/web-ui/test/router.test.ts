// The hash router: which page an address shows in each mode, with its id and filters.
import { describe, expect, it } from '@jest/globals';
import { idPath, parseHash, routeHash } from '../app/router.js';

describe('parseHash', () => {
  it('shows the runs in the dashboard and the traces in the viewer for an empty hash', () => {
    for (const hash of ['', '#', '#/']) {
      expect(parseHash(hash, 'dashboard')).toMatchObject({ page: 'runs', id: undefined });
      expect(parseHash(hash, 'viewer')).toMatchObject({ page: 'traces' });
    }
  });

  it.each([
    ['#/agents', 'agents', undefined],
    ['#/agents/4', 'agent', '4'],
    ['#/runs', 'runs', undefined],
    ['#/runs/12', 'run', '12'],
    ['#/workflows', 'workflows', undefined],
    ['#/workflows/incident-triage', 'workflow', 'incident-triage'],
    ['#/workflow-runs/5', 'workflow-run', '5'],
    ['#/approvals', 'approvals', undefined],
    ['#/approvals/appr-12-review', 'approval', 'appr-12-review'],
    ['#/schedules', 'schedules', undefined],
    ['#/environments', 'environments', undefined],
    ['#/new-run', 'new-run', undefined],
    ['#/traces', 'traces', undefined],
    ['#/traces/8ce8eb6f0a5c433d8ae1161808144d11', 'trace', '8ce8eb6f0a5c433d8ae1161808144d11'],
  ])('%s is the %s page', (hash, page, id) => {
    expect(parseHash(hash, 'dashboard')).toMatchObject({ page, id });
  });

  it('reads filters after ?, decoding them and leaving out empty ones', () => {
    expect(parseHash('#/runs?status=error&agent=my%20agent&environment=', 'dashboard')).toEqual({
      page: 'runs',
      id: undefined,
      query: { status: 'error', agent: 'my agent' },
      path: '/runs',
    });
  });

  it('decodes an encoded id segment and ignores a trailing slash', () => {
    expect(parseHash('#/approvals/a%2Fb/', 'dashboard')).toMatchObject({
      page: 'approval',
      id: 'a/b',
    });
  });

  it.each([
    '#/runs/abc',
    '#/runs/0',
    '#/runs/12/extra',
    '#/nowhere',
    '#/workflow-runs',
    '#/approvals/%E0%A4%A',
  ])('%s is not found', (hash) => {
    expect(parseHash(hash, 'dashboard').page).toBe('not-found');
  });

  it('has only the trace pages in the viewer', () => {
    expect(parseHash('#/runs/12', 'viewer').page).toBe('not-found');
    expect(parseHash('#/agents', 'viewer').page).toBe('not-found');
    expect(parseHash('#/traces/abc', 'viewer')).toMatchObject({ page: 'trace', id: 'abc' });
  });
});

describe('routeHash', () => {
  it('builds a hash with the non-empty filters', () => {
    expect(
      routeHash('/runs', { status: 'error', agent: '', environment: undefined, limit: 5 }),
    ).toBe('#/runs?status=error&limit=5');
    expect(routeHash('/runs')).toBe('#/runs');
  });

  it('round-trips through parseHash, ids included', () => {
    const hash = routeHash(idPath('approvals', 'a b/c?'), { status: 'a&b' });
    expect(parseHash(hash, 'dashboard')).toMatchObject({
      page: 'approval',
      id: 'a b/c?',
      query: { status: 'a&b' },
    });
  });
});
