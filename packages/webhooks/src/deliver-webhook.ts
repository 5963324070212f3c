// One outbound webhook delivery (spec §6.1): JSON POST with `User-Agent: Svc-Webhook/1.0`,
// a per-attempt timeout, 3 attempts 0 s / 1 s / 4 s apart, non-2xx counted as a failure, and a
// `notification_logs` row per attempt. Alert events and approval requests both go through here.
// With a signing secret every attempt is signed the Standard Webhooks way (webhook-signature.ts).
import { performance } from 'node:perf_hooks';
import got, { RequestError, TimeoutError } from 'got';
import { z } from 'zod';
import type { Store } from '@junction/store';
import { isSecretKey, redact, redactText, redactUrl, type Logger } from '@junction/telemetry';
import { WebhookError } from './errors.js';
import { createWebhookSigner, newWebhookId, type WebhookSigner } from './webhook-signature.js';

/** The User-Agent of every outbound webhook; a contract literal. */
export const WEBHOOK_USER_AGENT = 'Svc-Webhook/1.0';

/** `event_type` of every notification_logs row, per the spec. */
export const WEBHOOK_SENT = 'webhook_sent';

/** Per-attempt timeout when none is given: 10 s. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** Wait before attempts 1, 2 and 3: 0 s, 1 s, 4 s. */
export const DEFAULT_WEBHOOK_DELAYS_MS: readonly number[] = [0, 1000, 4000];

const optionsSchema = z.object({
  url: z.url({
    protocol: /^https?$/,
    error: 'url must be an http:// or https:// URL',
  }),
  eventType: z.string().min(1, { error: 'eventType must name the event, e.g. agent.failed' }),
  timeoutMs: z
    .int({ error: 'timeoutMs must be a whole number of milliseconds' })
    .min(1)
    .max(600_000)
    .optional(),
  delaysMs: z
    .array(z.int().min(0).max(600_000), {
      error: 'delaysMs must be a list of waits in milliseconds',
    })
    .min(1, { error: 'delaysMs needs at least one entry (one per attempt)' })
    .max(10)
    .optional(),
  runId: z.int().optional(),
});

/** What deliverWebhook needs. */
export interface DeliverWebhookOptions {
  /** Where each attempt is logged (a notification_logs row). */
  store: Pick<Store, 'notificationLogs'>;
  logger: Logger;
  /** Where to POST. Credentials or tokens in it are never stored or logged. */
  url: string;
  /** The event being delivered (`agent.failed`, `approval.requested`, …), for logs. */
  eventType: string;
  /** The JSON body. */
  payload: unknown;
  /** Per-attempt timeout. Default 10 s. */
  timeoutMs?: number;
  /** Wait before each attempt; its length is the number of attempts. Default [0, 1000, 4000]. */
  delaysMs?: readonly number[];
  /** The run the event is about, for log lines. */
  runId?: number;
  /** Stops waiting and the attempt in flight (shutdown); no further attempts are made. */
  signal?: AbortSignal;
  /**
   * notifications.signing_secret (`whsec_<base64>`): every attempt then carries `webhook-id` (the
   * same for all attempts of this delivery), `webhook-timestamp` and `webhook-signature`.
   */
  signingSecret?: string;
  /** Clock of `webhook-timestamp`. Default `() => new Date()`. */
  now?: () => Date;
  /** Makes the delivery's `webhook-id`. Default `msg_` and 128 random bits. */
  newId?: () => string;
}

/** How a delivery ended. */
export interface DeliveryResult {
  delivered: boolean;
  /** Attempts made (each has its notification_logs row). */
  attempts: number;
  /** HTTP status of the last attempt, or null when it got no response. */
  status: number | null;
  /** Why the last attempt failed, or null when it succeeded. */
  error: string | null;
  /** True when the signal stopped the delivery before it succeeded or ran out of attempts. */
  aborted: boolean;
}

interface Attempt {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** The secret parts of a URL (password, a token-long user name, secret-looking query values), to scrub from texts. */
function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    const values = [parsed.password];
    if (parsed.username.length >= 16) values.push(parsed.username);
    for (const [name, value] of parsed.searchParams) if (isSecretKey(name)) values.push(value);
    return values.filter((v) => v.length > 0);
  } catch {
    return [];
  }
}

/** Resolves after `ms` (true), or early when `signal` aborts (false). */
function wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof TimeoutError) return `timed out after ${timeoutMs} ms (no complete answer)`;
  if (err instanceof RequestError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** What one attempt sends: the body exactly as signed, and the headers besides User-Agent. */
interface Outgoing {
  body: string;
  headers: Record<string, string>;
}

/** The body as sent (and signed): the payload's JSON. */
function bodyOf(payload: unknown): string {
  return JSON.stringify(payload) ?? 'null';
}

/** How a delivery signs its attempts: one signer, one id for every attempt, a clock. */
interface Signing {
  signer: WebhookSigner;
  id: string;
  now: () => Date;
}

/** The delivery's signing, or undefined without a secret (OPTIONS_INVALID for a malformed one). */
function signingOf(options: DeliverWebhookOptions): Signing | undefined {
  if (options.signingSecret === undefined) return undefined;
  return {
    signer: createWebhookSigner(options.signingSecret),
    id: (options.newId ?? newWebhookId)(),
    now: options.now ?? ((): Date => new Date()),
  };
}

/** The headers of an attempt made now: Content-Type, and the signature headers when signing. */
function outgoing(body: string, signing: Signing | undefined): Outgoing {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signing) Object.assign(headers, signing.signer.headers(signing.id, signing.now(), body));
  return { body, headers };
}

async function attemptOnce(
  url: string,
  request: Outgoing,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  try {
    const response = await got.post(url, {
      body: request.body,
      headers: { ...request.headers, 'user-agent': WEBHOOK_USER_AGENT },
      timeout: { request: timeoutMs },
      // Retries are ours (the 0/1/4 s schedule, one log row each); redirects would re-send the
      // body somewhere the operator did not configure, so a 3xx is a failure like any non-2xx.
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      ...(signal ? { signal } : {}),
    });
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    return {
      status,
      error: ok
        ? null
        : `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`,
      durationMs: elapsed(),
    };
  } catch (err) {
    return { status: null, error: describeFailure(err, timeoutMs), durationMs: elapsed() };
  }
}

/**
 * POSTs `payload` as JSON to `url` with `User-Agent: Svc-Webhook/1.0`: up to 3 attempts (one per
 * entry of `delaysMs`, default waits 0 s, 1 s, 4 s before attempts 1, 2, 3), each limited to
 * `timeoutMs` and recorded as a `notification_logs` row (`webhook_sent`, redacted URL). Any 2xx
 * is success; network errors, timeouts and other statuses are retried; after the last failure a
 * "webhook delivery given up" error is logged. Resolves with the outcome; it rejects only when
 * the options themselves are invalid (OPTIONS_INVALID), never because the receiver failed.
 */
export async function deliverWebhook(options: DeliverWebhookOptions): Promise<DeliveryResult> {
  const checked = optionsSchema.safeParse({
    url: options.url,
    eventType: options.eventType,
    timeoutMs: options.timeoutMs,
    delaysMs: options.delaysMs,
    runId: options.runId,
  });
  if (!checked.success) {
    throw new WebhookError(
      'OPTIONS_INVALID',
      `Cannot deliver the webhook: ${checked.error.issues.map((i) => i.message).join('; ')}.`,
      { problems: checked.error.issues.map((i) => i.message) },
    );
  }
  const { store, url, eventType, payload, signal } = options;
  const signing = signingOf(options);
  const body = bodyOf(payload);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const delays = options.delaysMs ?? DEFAULT_WEBHOOK_DELAYS_MS;
  const safeUrl = redactUrl(url);
  const secrets = urlSecrets(url);
  const scrub = (text: string): string => redactText(text.split(url).join(safeUrl), secrets);
  const storedPayload = redact(payload, secrets);
  const logger = options.logger.child({
    event: eventType,
    url: safeUrl,
    ...(options.runId !== undefined ? { run_id: options.runId } : {}),
    ...(signing ? { webhook_id: signing.id } : {}),
  });

  let last: Attempt = { status: null, error: null, durationMs: 0 };
  let attempts = 0;
  for (const delay of delays) {
    if (!(await wait(delay, signal))) break;
    attempts += 1;
    // Each attempt is signed as it starts: its webhook-timestamp is the time of that attempt.
    last = await attemptOnce(url, outgoing(body, signing), timeoutMs, signal);
    const error = last.error === null ? null : scrub(last.error);
    last = { ...last, error };
    try {
      await store.notificationLogs.append({
        eventType: WEBHOOK_SENT,
        url: safeUrl,
        payload: storedPayload,
        attempt: attempts,
        responseStatus: last.status,
        error,
        durationMs: last.durationMs,
      });
    } catch (err) {
      logger.error('could not record a webhook attempt in notification_logs', {
        attempt: attempts,
        error: scrub(err instanceof Error ? err.message : String(err)),
      });
    }
    if (error === null) {
      logger.info('webhook delivered', {
        attempt: attempts,
        status: last.status,
        duration_ms: last.durationMs,
      });
      return { delivered: true, attempts, status: last.status, error: null, aborted: false };
    }
    if (signal?.aborted) break;
    logger.warn('webhook attempt failed', {
      attempt: attempts,
      of: delays.length,
      status: last.status,
      error,
      duration_ms: last.durationMs,
    });
  }
  if (signal?.aborted) {
    logger.warn('webhook delivery abandoned at shutdown', { attempts, error: last.error });
    return { delivered: false, attempts, status: last.status, error: last.error, aborted: true };
  }
  logger.error('webhook delivery given up', {
    attempts,
    status: last.status,
    error: last.error,
  });
  return { delivered: false, attempts, status: last.status, error: last.error, aborted: false };
}
