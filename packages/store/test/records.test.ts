import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import type { Store } from '../src/index.js';
import { manualClock, openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

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
