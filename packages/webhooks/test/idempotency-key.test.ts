import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { IDEMPOTENCY_WINDOW_MS } from '@junction/agent-core/runs';
import { openFixture, post, startWebhookApp, type Fixture, type Listening } from './helpers.js';

let fx: Fixture;
let app: Listening | undefined;

beforeEach(async () => {
  fx = await openFixture();
  app = undefined;
});
afterEach(async () => {
  await app?.close();
  await fx.close();
});

const body = { agent_name: 'assistant', task: 'Open a ticket', variables: { team: 'ops' } };

describe('Idempotency-Key on POST /execute', () => {
  it('returns the same run for a repeat within 24 h instead of starting another', async () => {
    app = await startWebhookApp(fx);
    const first = await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-001' });
    const second = await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-001' });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const a = (await first.json()) as { run_id: number };
    expect(await second.json()).toEqual(a);
    expect(await fx.store.runs.count()).toBe(1);

    // A different key, or none, starts another run.
    await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-002' });
    await post(`${app.url}/execute`, body);
    expect(await fx.store.runs.count()).toBe(3);
  });

  it('starts one run for concurrent repeats', async () => {
    app = await startWebhookApp(fx);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        post(`${app!.url}/execute`, body, { 'idempotency-key': 'evt-race' }),
      ),
    );
    const ids = await Promise.all(
      answers.map(async (res) => {
        expect(res.status).toBe(202);
        return ((await res.json()) as { run_id: number }).run_id;
      }),
    );
    expect(new Set(ids).size).toBe(1);
    expect(await fx.store.runs.count()).toBe(1);
  });

  it('starts a new run once the key is older than 24 h, and the new run owns the key', async () => {
    // One clock for the store (queued_at) and the router (the window), moved by hand.
    let offsetMs = 0;
    const now = (): Date => new Date(Date.now() + offsetMs);
    await fx.close();
    fx = await openFixture(now);
    app = await startWebhookApp(fx, { now });
    const first = (await (
      await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-old' })
    ).json()) as { run_id: number };

    offsetMs = IDEMPOTENCY_WINDOW_MS - 60_000;
    const stillSame = await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-old' });
    expect(((await stillSame.json()) as { run_id: number }).run_id).toBe(first.run_id);

    // Expired: several callers at once release the key from the old run; exactly one new run starts.
    offsetMs = IDEMPOTENCY_WINDOW_MS + 60_000;
    const later = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(`${app!.url}/execute`, body, { 'idempotency-key': 'evt-old' }),
      ),
    );
    const laterIds = new Set<number>();
    for (const res of later) {
      expect(res.status).toBe(202);
      laterIds.add(((await res.json()) as { run_id: number }).run_id);
    }
    expect(later.filter((res) => res.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(laterIds.size).toBe(1);
    const second = { run_id: [...laterIds][0]! };
    expect(second.run_id).not.toBe(first.run_id);
    expect(await fx.store.runs.count()).toBe(2);
    // The old run is kept; a repeat now replays the new run.
    expect(await fx.store.runs.get(first.run_id)).toBeDefined();
    const again = await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-old' });
    expect(((await again.json()) as { run_id: number }).run_id).toBe(second.run_id);
    expect(await fx.store.runs.count()).toBe(2);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED when the key comes back with another request', async () => {
    app = await startWebhookApp(fx);
    await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-x' });
    for (const other of [
      { ...body, task: 'Close the ticket' },
      { ...body, variables: { team: 'dev' } },
      { ...body, agent_name: 'triage' },
    ]) {
      const res = await post(`${app.url}/execute`, other, { 'idempotency-key': 'evt-x' });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'IDEMPOTENCY_KEY_REUSED',
      );
    }
    expect(await fx.store.runs.count()).toBe(1);
  });

  it('answers 400 IDEMPOTENCY_KEY_INVALID for an empty, spaced or overlong key', async () => {
    app = await startWebhookApp(fx);
    for (const key of [' ', 'has space', 'k'.repeat(256)]) {
      const res = await post(`${app.url}/execute`, body, { 'idempotency-key': key });
      expect(res.status).toBe(400);
      const error = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('IDEMPOTENCY_KEY_INVALID');
      expect(error.message).toContain('Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    expect(await fx.store.runs.count()).toBe(0);
  });

  it('does not remember keys of refused requests', async () => {
    app = await startWebhookApp(fx);
    const refused = await post(
      `${app.url}/execute`,
      { ...body, agent_name: 'nobody' },
      {
        'idempotency-key': 'evt-r',
      },
    );
    expect(refused.status).toBe(404);
    const ok = await post(`${app.url}/execute`, body, { 'idempotency-key': 'evt-r' });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await fx.store.runs.count()).toBe(1);
  });
});
