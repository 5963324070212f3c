// Receivers of Junction's webhooks could not tell them from forgeries: only a User-Agent came
// with them. With notifications.signing_secret every delivery is signed the Standard Webhooks way,
// checked here by the `standardwebhooks` verifier from npm on real deliveries to a real server.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { deliverWebhook } from '../src/deliver-webhook.js';
import { isWebhookError } from '../src/errors.js';
import { createNotifier } from '../src/index.js';
import { createWebhookSigner, type SignatureHeaders } from '../src/webhook-signature.js';
import {
  memoryLogger,
  openFixture,
  startSink,
  type Fixture,
  type Listening,
  type SinkRequest,
} from './helpers.js';

// The secret, message and signature of the Standard Webhooks libraries' own test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const SECRET = `whsec_${Buffer.alloc(32, 0x5a).toString('base64')}`;
const payload = { event: 'agent.failed', run_id: 7, error: 'model refused' };

let fx: Fixture;
const servers: Listening[] = [];

beforeEach(async () => {
  fx = await openFixture();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await fx.close();
});

async function sink(respond: (n: number) => number): ReturnType<typeof startSink> {
  const s = await startSink(respond);
  servers.push(s);
  return s;
}

/** The three signature headers a request carried (node lower-cases header names). */
function signatureOf(request: SinkRequest): SignatureHeaders {
  const header = (name: keyof SignatureHeaders): string => {
    const value = request.headers[name];
    if (typeof value !== 'string') throw new Error(`the delivery carried no ${name} header`);
    return value;
  };
  return {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  };
}

describe('signed outbound webhooks (Standard Webhooks)', () => {
  it('signs the specification test vector exactly as the reference libraries do', () => {
    const signer = createWebhookSigner(VECTOR.secret);
    expect(signer.sign(VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(
      new Webhook(VECTOR.secret).sign(VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.body),
    ).toBe(VECTOR.signature);
  });

  it('signs every attempt; a retry keeps the id and is signed at its own time', async () => {
    const receiver = await sink((n) => (n === 1 ? 500 : 204));
    const base = Date.now();
    const clock = [base, base + 7_000];
    const result = await deliverWebhook({
      store: fx.store,
      logger: memoryLogger().logger,
      url: `${receiver.url}/hook`,
      eventType: 'agent.failed',
      payload,
      delaysMs: [0, 0],
      signingSecret: SECRET,
      now: () => new Date(clock.shift() ?? base),
    });
    expect(result.delivered).toBe(true);
    expect(receiver.requests).toHaveLength(2);

    const verifier = new Webhook(SECRET);
    const [first, second] = receiver.requests.map(signatureOf);
    for (const request of receiver.requests) {
      expect(request.headers['user-agent']).toBe('Svc-Webhook/1.0');
      expect(request.headers['content-type']).toBe('application/json');
      expect(verifier.verify(request.body, signatureOf(request))).toEqual(payload);
    }
    expect(first!['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(second!['webhook-id']).toBe(first!['webhook-id']);
    expect(first!['webhook-timestamp']).toBe(String(Math.floor(base / 1000)));
    expect(second!['webhook-timestamp']).toBe(String(Math.floor((base + 7_000) / 1000)));
    expect(second!['webhook-signature']).not.toBe(first!['webhook-signature']);
  });

  it('gives each event its own id', async () => {
    const receiver = await sink(() => 204);
    for (let i = 0; i < 2; i += 1) {
      await deliverWebhook({
        store: fx.store,
        logger: memoryLogger().logger,
        url: receiver.url,
        eventType: 'agent.failed',
        payload,
        signingSecret: SECRET,
      });
    }
    const ids = receiver.requests.map((r) => signatureOf(r)['webhook-id']);
    expect(new Set(ids).size).toBe(2);
  });

  it('is refused by a receiver with another secret, or when the body was changed', async () => {
    const receiver = await sink(() => 204);
    await deliverWebhook({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      eventType: 'agent.failed',
      payload,
      signingSecret: SECRET,
    });
    const [request] = receiver.requests;
    const headers = signatureOf(request!);
    const otherSecret = `whsec_${Buffer.alloc(32, 0x11).toString('base64')}`;
    expect(() => new Webhook(otherSecret).verify(request!.body, headers)).toThrow(
      WebhookVerificationError,
    );
    const forged = request!.body.replace('model refused', 'all fine');
    expect(() => new Webhook(SECRET).verify(forged, headers)).toThrow(WebhookVerificationError);
  });

  it('sends no signature headers without a secret (nothing changes)', async () => {
    const receiver = await sink(() => 204);
    await deliverWebhook({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      eventType: 'agent.failed',
      payload,
    });
    const [request] = receiver.requests;
    expect(request!.headers['user-agent']).toBe('Svc-Webhook/1.0');
    expect(Object.keys(request!.headers).filter((h) => h.startsWith('webhook-'))).toEqual([]);
    expect(JSON.parse(request!.body)).toEqual(payload);
  });

  it('signs approval requests the notifier sends, and never logs or stores the secret', async () => {
    const receiver = await sink(() => 204);
    const { logger, lines } = memoryLogger();
    const notifier = createNotifier({
      store: fx.store,
      logger,
      events: [],
      version: '0.1.0',
      approvalUrl: `${receiver.url}/approvals`,
      signingSecret: SECRET,
    });
    const approval = { event: 'approval.requested', approval_id: 'appr-1-gate' };
    await notifier.approvalRequested(approval);
    await notifier.close();
    const [request] = receiver.requests;
    expect(new Webhook(SECRET).verify(request!.body, signatureOf(request!))).toEqual(approval);
    const delivered = lines().find((l) => l.msg === 'webhook delivered');
    expect(delivered?.webhook_id).toBe(signatureOf(request!)['webhook-id']);
    const keyText = SECRET.slice('whsec_'.length);
    expect(JSON.stringify(lines())).not.toContain(keyText);
    const rows = await fx.store.notificationLogs.list({ limit: 10 });
    expect(JSON.stringify(rows)).not.toContain(keyText);
  });

  it('refuses a malformed secret when the notifier is built, without quoting it', () => {
    const bad = 'whsec_c2hvcnQtc2VjcmV0LWtleQ==';
    let caught: unknown;
    try {
      createNotifier({
        store: fx.store,
        logger: memoryLogger().logger,
        events: [],
        version: '0.1.0',
        signingSecret: bad,
      });
    } catch (error) {
      caught = error;
    }
    expect(isWebhookError(caught) && caught.code).toBe('OPTIONS_INVALID');
    const message = (caught as Error).message;
    expect(message).toContain(
      'notifications.signing_secret is not a valid signing secret: it decodes to 16 bytes',
    );
    expect(message).not.toContain('c2hvcnQtc2VjcmV0LWtleQ');
  });
});
