// Alert events to notifications.webhook_url (spec §6.1): the run queue's onFinished and the
// scheduler hand events here; deliveries go on in the background and never block or fail a run.
import { NOTIFICATION_EVENTS } from '@junction/config-templates';
import type { Run, Store, WorkflowRun } from '@junction/store';
import { redactText, type Logger } from '@junction/telemetry';
import { z } from 'zod';
import { deliverWebhook } from './deliver-webhook.js';
import { WebhookError } from './errors.js';
import { createWebhookSigner } from './webhook-signature.js';
import {
  agentEventPayload,
  runEventOf,
  type SchedulerErrorPayload,
} from './notification-payloads.js';

/** An event name selectable in notifications.webhook_events. */
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** How long close() waits for deliveries in flight before abandoning them: 15 s. */
export const DEFAULT_NOTIFIER_CLOSE_TIMEOUT_MS = 15_000;

/**
 * The slice of the store the notifier uses: the environment a run's event names, and a
 * notification_logs row per delivery attempt.
 */
export type NotifierStore = Pick<Store, 'environments' | 'notificationLogs'>;

/** Options of createNotifier; the app reads them from config (notifications.*). */
export interface NotifierOptions {
  store: NotifierStore;
  logger: Logger;
  /** notifications.webhook_url; without it nothing is sent. */
  url?: string;
  /** notifications.webhook_events: which of NOTIFICATION_EVENTS are sent. */
  events: readonly string[];
  /** Per-attempt timeout. Default 10 s. */
  timeoutMs?: number;
  /** Wait before each attempt. Default [0, 1000, 4000]. */
  delaysMs?: readonly number[];
  /** Junction's version, carried in every payload as service.version. */
  version: string;
  /** Clock for occurred_at when a run has no completion time. Default `() => new Date()`. */
  now?: () => Date;
  /** notifications.approval_webhook_url: where approval.requested goes (always, when set). */
  approvalUrl?: string;
  /** notifications.approval_webhook_timeout, per attempt. Default 10 s. */
  approvalTimeoutMs?: number;
  /** notifications.signing_secret: every event and approval request is signed (Standard Webhooks). */
  signingSecret?: string;
}

/** What the scheduler reports when it could not start a scheduled run. */
export interface SchedulerErrorDetails {
  /** What went wrong, as a message that says what to do. */
  error: string;
  agent?: { id?: number | null; name: string; environment?: string | null };
  schedule?: { id?: number | null; cron?: string | null };
  occurredAt?: Date;
}

/** Sends the selected alert events; see createNotifier. */
export interface Notifier {
  /** Maps a finished run to agent.completed / agent.failed / agent.timeout and sends it if selected; resolves at once. */
  runFinished(run: Run): Promise<void>;
  /** Sends scheduler.error if selected; resolves at once. */
  schedulerError(details: SchedulerErrorDetails): Promise<void>;
  /**
   * Sends an approval.requested payload (spec §2.3) to notifications.approval_webhook_url, when
   * set: 3 attempts, each a notification_logs row; a delivery that fails leaves the approval
   * pending. Resolves once handed over.
   */
  approvalRequested(payload: Record<string, unknown>): Promise<void>;
  /** Sends workflow.failed (a workflow run that failed or timed out) if selected. */
  workflowFinished(run: WorkflowRun): Promise<void>;
  /** Stops taking events and waits for deliveries in flight, at most `timeoutMs` (default 15 s), then abandons the rest. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

const optionsSchema = z.object({
  url: z
    .url({
      protocol: /^https?$/,
      error: 'url (notifications.webhook_url) must be an http:// or https:// URL',
    })
    .optional(),
  events: z.array(
    z.enum(NOTIFICATION_EVENTS, {
      error: `events (notifications.webhook_events) may only hold ${NOTIFICATION_EVENTS.join(', ')}`,
    }),
  ),
  version: z.string().min(1, { error: 'version must be the Junction version' }),
});

/**
 * The events selected in the checked options. Bad options throw OPTIONS_INVALID, and a malformed
 * signing secret fails here, at start, rather than on the first event.
 */
function selectedEvents(options: NotifierOptions): Set<string> {
  const checked = optionsSchema.safeParse({
    url: options.url,
    events: options.events,
    version: options.version,
  });
  if (!checked.success) {
    throw new WebhookError(
      'OPTIONS_INVALID',
      `Cannot set up notifications: ${checked.error.issues.map((i) => i.message).join('; ')}.`,
    );
  }
  if (options.signingSecret !== undefined) createWebhookSigner(options.signingSecret);
  return new Set<string>(checked.data.events);
}

/** Hands payloads to deliverWebhook in the background and keeps track of them until close. */
interface Deliveries {
  /** Sends `build()`'s payload to `to` (by default `url`, if the event is selected); never throws. */
  send(
    event: NotificationEvent | 'approval.requested',
    runId: number | undefined,
    build: () => Promise<unknown>,
    to?: string,
  ): void;
  /** Stops taking events and waits for those in flight, at most `timeoutMs`, then abandons them. */
  close(timeoutMs: number): Promise<void>;
}

/** The background deliveries of one notifier: each in flight until it settles or close gives up. */
function createDeliveries(
  options: NotifierOptions,
  logger: Logger,
  selected: ReadonlySet<string>,
): Deliveries {
  const { store, url } = options;
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  let closed = false;

  const send = (
    event: NotificationEvent | 'approval.requested',
    runId: number | undefined,
    build: () => Promise<unknown>,
    to: string | undefined = selected.has(event) ? url : undefined,
  ): void => {
    if (to === undefined) return;
    if (closed) {
      logger.warn('notification dropped: the notifier is closed', { event, run_id: runId });
      return;
    }
    const task = (async (): Promise<void> => {
      const payload = await build();
      const approval = event === 'approval.requested';
      const timeoutMs = approval ? options.approvalTimeoutMs : options.timeoutMs;
      await deliverWebhook({
        store,
        logger,
        url: to,
        eventType: event,
        payload,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(options.delaysMs !== undefined ? { delaysMs: options.delaysMs } : {}),
        ...(runId !== undefined ? { runId } : {}),
        ...(options.signingSecret !== undefined ? { signingSecret: options.signingSecret } : {}),
        ...(options.now ? { now: options.now } : {}),
        signal: abort.signal,
      });
    })().catch((err: unknown) => {
      logger.error('notification failed before it could be sent', {
        event,
        run_id: runId,
        error: redactText(err instanceof Error ? err.message : String(err)),
      });
    });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  };

  const close = async (timeoutMs: number): Promise<void> => {
    closed = true;
    if (inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const settled = Promise.allSettled([...inFlight]).then(() => 'done' as const);
    const outcome = await Promise.race([settled, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      logger.warn('abandoning notifications still in flight at shutdown', {
        count: inFlight.size,
        waited_ms: timeoutMs,
      });
      abort.abort();
      await Promise.allSettled([...inFlight]);
    }
  };

  return { send, close };
}

/** The scheduler.error payload for what the scheduler reported; the error text is redacted. */
function schedulerErrorPayload(
  details: SchedulerErrorDetails,
  now: () => Date,
  version: string,
): SchedulerErrorPayload {
  return {
    event: 'scheduler.error',
    occurred_at: (details.occurredAt ?? now()).toISOString(),
    error: redactText(details.error),
    agent: details.agent
      ? {
          id: details.agent.id ?? null,
          name: details.agent.name,
          environment: details.agent.environment ?? null,
        }
      : null,
    schedule: details.schedule
      ? { id: details.schedule.id ?? null, cron: details.schedule.cron ?? null }
      : null,
    service: { name: 'junction', version },
  };
}

/** The workflow.failed payload for a workflow run that failed or timed out. */
function workflowFailedPayload(
  run: WorkflowRun,
  now: () => Date,
  version: string,
): Record<string, unknown> {
  return {
    event: 'workflow.failed',
    occurred_at: (run.completedAt ?? now()).toISOString(),
    workflow_run_id: run.id,
    workflow_id: run.workflowKey,
    workflow_name: run.workflowName,
    status: run.status,
    error: run.error === null ? null : redactText(run.error),
    service: { name: 'junction', version },
  };
}

/**
 * Builds the notifier. Each selected event is POSTed to `url` through deliverWebhook (3 attempts,
 * a notification_logs row each) in the background; runFinished and schedulerError never throw.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const selected = selectedEvents(options);
  const { store, version } = options;
  const logger = options.logger.child({ component: 'notifier' });
  const now = options.now ?? ((): Date => new Date());
  const { send, close } = createDeliveries(options, logger, selected);

  return {
    async runFinished(run: Run): Promise<void> {
      const event = runEventOf(run);
      if (event === undefined) return;
      send(event, run.id, async () => {
        const environment =
          run.environmentId === null ? undefined : await store.environments.get(run.environmentId);
        return agentEventPayload(run, { environment: environment?.name ?? null, version, now });
      });
    },

    async schedulerError(details: SchedulerErrorDetails): Promise<void> {
      send('scheduler.error', undefined, async () => schedulerErrorPayload(details, now, version));
    },

    async approvalRequested(payload: Record<string, unknown>): Promise<void> {
      send('approval.requested', undefined, async () => payload, options.approvalUrl);
    },

    async workflowFinished(run: WorkflowRun): Promise<void> {
      if (run.status !== 'failed' && run.status !== 'timed_out') return;
      send('workflow.failed', undefined, async () => workflowFailedPayload(run, now, version));
    },

    async close(closeOptions: { timeoutMs?: number } = {}): Promise<void> {
      await close(closeOptions.timeoutMs ?? DEFAULT_NOTIFIER_CLOSE_TIMEOUT_MS);
    },
  };
}
