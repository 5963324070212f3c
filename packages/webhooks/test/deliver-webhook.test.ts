import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { deliverWebhook, WEBHOOK_USER_AGENT } from '../src/deliver-webhook.js';
import {
  listen,
  memoryLogger,
  openFixture,
  startSink,
  type Fixture,
  type Listening,
} from './helpers.js';

let fx: Fixture;
const servers: Listening[] = [];

beforeEach(async () => {
  fx = await openFixture();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await fx.close();
});

async function sink(respond: (n: number) => number | 'hang'): ReturnType<typeof startSink> {
  const s = await startSink(respond);
  servers.push(s);
  return s;
}

/** notification_logs rows, oldest first. */
async function logRows(): Promise<
  Awaited<ReturnType<Fixture['store']['notificationLogs']['list']>>
> {
  return (await fx.store.notificationLogs.list({ limit: 100 })).reverse();
}

const payload = { event: 'agent.failed', run_id: 7, error: 'model refused' };

describe('deliverWebhook', () => {
  it('retries a failing receiver 0 s, 1 s and 4 s apart and logs every attempt', async () => {
    const receiver = await sink((n) => (n <= 2 ? 500 : 200));
    const { logger, lines } = memoryLogger();
    const started = performance.now();
    const result = await deliverWebhook({
      store: fx.store,
      logger,
      url: `${receiver.url}/hook`,
      eventType: 'agent.failed',
      payload,
      timeoutMs: 2000,
      runId: 7,
    });
    expect(result).toEqual({
      delivered: true,
      attempts: 3,
      status: 200,
      error: null,
      aborted: false,
    });

    const [r1, r2, r3] = receiver.requests;
    expect(receiver.requests).toHaveLength(3);
    // The real schedule: attempt 1 at once, attempt 2 a second after attempt 1 failed, attempt 3 four seconds after attempt 2.
    expect(r1!.at - started).toBeLessThan(500);
    expect(r2!.at - r1!.at).toBeGreaterThanOrEqual(1000);
    expect(r2!.at - r1!.at).toBeLessThan(1600);
    expect(r3!.at - r2!.at).toBeGreaterThanOrEqual(4000);
    expect(r3!.at - r2!.at).toBeLessThan(4600);
    for (const r of receiver.requests) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/hook');
      expect(r.headers['user-agent']).toBe('Svc-Webhook/1.0');
      expect(r.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(r.body)).toEqual(payload);
    }

    const rows = await logRows();
    expect(rows.map((r) => [r.eventType, r.attempt, r.responseStatus, r.error])).toEqual([
      ['webhook_sent', 1, 500, 'HTTP 500 Internal Server Error'],
      ['webhook_sent', 2, 500, 'HTTP 500 Internal Server Error'],
      ['webhook_sent', 3, 200, null],
    ]);
    for (const row of rows) {
      expect(row.createdAt).toBeInstanceOf(Date);
      expect(row.durationMs).toEqual(expect.any(Number));
      expect(row.url).toBe(`${receiver.url}/hook`);
      expect(row.payload).toEqual(payload);
    }
    const logged = lines();
    expect(logged.filter((l) => l.msg === 'webhook attempt failed')).toHaveLength(2);
    expect(logged.find((l) => l.msg === 'webhook delivered')).toMatchObject({
      level: 'info',
      attempt: 3,
      status: 200,
      event: 'agent.failed',
      run_id: 7,
    });
  }, 180_000);

  it('gives up after 3 failed attempts and logs that it did', async () => {
    const receiver = await sink(() => 503);
    const { logger, lines } = memoryLogger();
    const result = await deliverWebhook({
      store: fx.store,
      logger,
      url: receiver.url,
      eventType: 'agent.timeout',
      payload,
      timeoutMs: 1000,
      delaysMs: [0, 20, 80],
    });
    expect(result).toEqual({
      delivered: false,
      attempts: 3,
      status: 503,
      error: 'HTTP 503 Service Unavailable',
      aborted: false,
    });
    expect(receiver.requests).toHaveLength(3);
    expect((await logRows()).map((r) => r.responseStatus)).toEqual([503, 503, 503]);
    const givenUp = lines().filter((l) => l.msg === 'webhook delivery given up');
    expect(givenUp).toHaveLength(1);
    expect(givenUp[0]).toMatchObject({
      level: 'error',
      attempts: 3,
      status: 503,
      error: 'HTTP 503 Service Unavailable',
      event: 'agent.timeout',
    });
  });

  it('times out each attempt of a receiver that never answers', async () => {
    const receiver = await sink(() => 'hang');
    const started = performance.now();
    const result = await deliverWebhook({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      eventType: 'agent.failed',
      payload,
      timeoutMs: 300,
      delaysMs: [0, 10, 40],
    });
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ delivered: false, attempts: 3, status: null });
    expect(result.error).toBe('timed out after 300 ms (no complete answer)');
    expect(receiver.requests).toHaveLength(3);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3000);
    const rows = await logRows();
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.responseStatus).toBeNull();
      expect(row.error).toBe('timed out after 300 ms (no complete answer)');
      expect(row.durationMs).toBeGreaterThanOrEqual(290);
      expect(row.durationMs).toBeLessThan(1500);
    }
  });

  it('counts a network error as a failed attempt and retries', async () => {
    // A port that was just free: nothing listens there.
    const gone = await listen(() => undefined);
    await gone.close();
    const result = await deliverWebhook({
      store: fx.store,
      logger: memoryLogger().logger,
      url: gone.url,
      eventType: 'agent.failed',
      payload,
      timeoutMs: 500,
      delaysMs: [0, 10, 10],
    });
    expect(result).toMatchObject({ delivered: false, attempts: 3, status: null });
    expect(result.error).toMatch(/^ECONNREFUSED/);
    expect(await logRows()).toHaveLength(3);
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    const elsewhere = await sink(() => 200);
    const receiver = await listen((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/other` }).end();
    });
    servers.push(receiver);
    const result = await deliverWebhook({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      eventType: 'agent.failed',
      payload,
      delaysMs: [0, 10, 10],
    });
    expect(result).toMatchObject({ delivered: false, attempts: 3, status: 307 });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('never stores or logs credentials or tokens from the URL', async () => {
    const receiver = await sink((n) => (n === 1 ? 500 : 204));
    const { logger, lines } = memoryLogger();
    const port = new URL(receiver.url).port;
    const url = `http://hookuser:pa55w0rd-secret@127.0.0.1:${port}/hook?token=sekrit-token-value&channel=alerts`;
    const result = await deliverWebhook({
      store: fx.store,
      logger,
      url,
      eventType: 'agent.failed',
      payload,
      delaysMs: [0, 10, 10],
    });
    expect(result.delivered).toBe(true);
    // The receiver got the real URL...
    expect(receiver.requests[0]!.url).toBe('/hook?token=sekrit-token-value&channel=alerts');
    // ...but nothing Junction keeps contains the secrets.
    const rows = await logRows();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.url).toBe(
        `http://hookuser:[REDACTED]@127.0.0.1:${port}/hook?token=[REDACTED]&channel=alerts`,
      );
      expect(JSON.stringify(row)).not.toMatch(/sekrit|pa55w0rd/);
    }
    const text = JSON.stringify(lines());
    expect(text).toContain('webhook delivered');
    expect(text).not.toMatch(/sekrit|pa55w0rd/);
  });

  it('refuses invalid options instead of sending', async () => {
    await expect(
      deliverWebhook({
        store: fx.store,
        logger: memoryLogger().logger,
        url: 'ftp://example.test/hook',
        eventType: 'agent.failed',
        payload,
      }),
    ).rejects.toMatchObject({
      code: 'OPTIONS_INVALID',
      message: 'Cannot deliver the webhook: url must be an http:// or https:// URL.',
    });
    expect(await logRows()).toHaveLength(0);
  });
});
