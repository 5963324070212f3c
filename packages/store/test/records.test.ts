import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import path from 'node:path';
import { openStore, type Store } from '../src/index.js';
import { makeTempDir, manualClock, openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

describe.each(STORE_KINDS)('notification logs, audit log and settings on %s', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;
  let clock: ReturnType<typeof manualClock>;

  beforeEach(async () => {
    clock = manualClock();
    ({ store, close } = await openTestStore(kind, clock.now));
  });
  afterEach(async () => {
    await close();
  });

  it('records each webhook delivery attempt as webhook_sent', async () => {
    const payload = { event: 'approval.requested', approval_id: 'appr-1-a' };
    const first = await store.notificationLogs.append({
      eventType: 'webhook_sent',
      url: 'http://hook',
      payload,
      error: 'ECONNREFUSED',
      durationMs: 3,
    });
    clock.advance(1000);
    const second = await store.notificationLogs.append({
      eventType: 'webhook_sent',
      url: 'http://hook',
      payload,
      attempt: 2,
      responseStatus: 200,
    });
    expect(first).toMatchObject({
      attempt: 1,
      responseStatus: null,
      error: 'ECONNREFUSED',
      payload,
      createdAt: new Date(clock.now().getTime() - 1000),
    });
    expect(
      (await store.notificationLogs.list({ eventType: 'webhook_sent' })).map((n) => n.id),
    ).toEqual([second.id, first.id]);
    expect((await store.notificationLogs.list({ since: clock.now() })).map((n) => n.id)).toEqual([
      second.id,
    ]);
  });

  it('appends audit entries and filters them by source, outcome and time', async () => {
    const mcp = await store.auditLog.append({
      actor: 'alice',
      source: 'mcp',
      transport: 'http',
      action: 'call_agent',
      arguments: { agent_name: 'helper', api_key: '[REDACTED]' },
      outcome: 'success',
      durationMs: 12,
    });
    clock.advance(1000);
    const rest = await store.auditLog.append({
      source: 'rest',
      action: 'queue',
      outcome: 'denied',
      details: { status: 401 },
    });
    expect(mcp).toMatchObject({
      at: new Date(clock.now().getTime() - 1000),
      arguments: { agent_name: 'helper', api_key: '[REDACTED]' },
      details: null,
    });
    expect((await store.auditLog.list()).map((e) => e.id)).toEqual([rest.id, mcp.id]);
    expect((await store.auditLog.list({ source: 'mcp' })).map((e) => e.action)).toEqual([
      'call_agent',
    ]);
    expect((await store.auditLog.list({ outcome: 'denied' })).map((e) => e.id)).toEqual([rest.id]);
    expect((await store.auditLog.list({ until: clock.now() })).map((e) => e.id)).toEqual([mcp.id]);
    expect(await store.auditLog.pruneOlderThan(clock.now())).toBe(1);
  });

  it('writes recorded audit entries in groups, all of them, readable at once by this process', async () => {
    const entry = (i: number) => ({
      source: 'mcp',
      transport: 'stdio',
      actor: 'bench/1.0',
      action: `tool_${i}`,
      arguments: { i, text: 'it\'s "quoted" — ünïcode' },
      outcome: 'success' as const,
      durationMs: i,
      details: i % 2 === 0 ? null : { code: 'X' },
    });
    // Not awaited one by one: they wait together for one insert.
    const written = Array.from({ length: 25 }, (_, i) => store.auditLog.record(entry(i)));
    // list() writes what waits first, so nothing is missing even before the group is due.
    const rows = await store.auditLog.list({ source: 'mcp', limit: 100 });
    await Promise.all(written);
    expect(rows).toHaveLength(25);
    const first = rows.find((r) => r.action === 'tool_3');
    expect(first).toMatchObject({
      at: clock.now(),
      actor: 'bench/1.0',
      transport: 'stdio',
      arguments: { i: 3, text: 'it\'s "quoted" — ünïcode' },
      outcome: 'success',
      durationMs: 3,
      details: { code: 'X' },
    });
    expect(rows.find((r) => r.action === 'tool_4')?.details).toBeNull();
  });

  it('lists entries whose group insert is already on its way to the database', async () => {
    const recorded = store.auditLog.record({
      source: 'mcp',
      action: 'in flight',
      outcome: 'success',
    });
    // Other writes ahead in the queue, and the group taken by a flush that is not awaited.
    const writes = Array.from({ length: 20 }, (_, i) => store.settings.set(`k${i}`, i));
    void store.auditLog.flush();
    expect((await store.auditLog.list()).map((e) => e.action)).toEqual(['in flight']);
    await Promise.all([recorded, ...writes]);
  });

  it('keeps the good audit entries of a group when one is refused, and tells that caller why', async () => {
    const good = store.auditLog.record({ source: 'mcp', action: 'a', outcome: 'success' });
    const bad = store.auditLog.record({
      source: null as unknown as string,
      action: 'b',
      outcome: 'success',
    });
    const alsoGood = store.auditLog.record({ source: 'mcp', action: 'c', outcome: 'error' });
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(alsoGood).resolves.toBeUndefined();
    expect((await store.auditLog.list()).map((e) => e.action).sort()).toEqual(['a', 'c']);
  });

  it('sets a value once: every caller of getOrSet gets the first one stored', async () => {
    const got = await Promise.all(
      ['a1', 'b2', 'c3', 'd4'].map((value) => store.settings.getOrSet('store_id', value)),
    );
    expect(new Set(got).size).toBe(1);
    expect(await store.settings.get('store_id')).toBe(got[0]);
    expect(await store.settings.getOrSet('store_id', 'later')).toBe(got[0]);
  });

  it('keeps JSON settings by key', async () => {
    expect(await store.settings.get('station')).toBeUndefined();
    await store.settings.set('station', { name: 'lab-1', tags: ['a'] });
    clock.advance(5);
    const updated = await store.settings.set('station', { name: 'lab-2', tags: [] });
    expect(updated.updatedAt).toEqual(clock.now());
    expect(await store.settings.get('station')).toEqual({ name: 'lab-2', tags: [] });
    const station = await store.settings.get(
      'station',
      z.object({ name: z.string(), tags: z.array(z.string()) }),
    );
    expect(station?.name).toBe('lab-2');
    await expect(
      store.settings.get('station', z.object({ name: z.number() })),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await store.settings.set('flag', false);
    await store.settings.set('nothing', null);
    expect(await store.settings.get('flag')).toBe(false);
    expect(await store.settings.get('nothing')).toBeNull();
    expect((await store.settings.list()).map((s) => s.key)).toEqual(['flag', 'nothing', 'station']);
    expect(await store.settings.delete('flag')).toBe(true);
    expect(await store.settings.delete('flag')).toBe(false);
  });
});

describe('audit entries waiting for their group insert', () => {
  it('are written when the store closes, and found by the next process', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const file = path.join(dir, 'junction.db');
      const first = await openStore({ url: file });
      const pending = first.auditLog.record({ source: 'mcp', action: 'last', outcome: 'success' });
      await first.close();
      await expect(pending).resolves.toBeUndefined();
      const second = await openStore({ url: file });
      expect((await second.auditLog.list()).map((e) => e.action)).toEqual(['last']);
      await second.close();
    } finally {
      cleanup();
    }
  });
});
