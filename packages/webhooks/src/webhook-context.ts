// What the webhook routes are built from: the deps the app hands over, checked once per app or
// router, with the logger and the key check every route shares.
import type { RunDoor } from '@junction/agent-core/runs';
import type { RunReader, Store } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import type { WorkflowDoor } from '@junction/workflows';
import { apiKeyCheck, type ApiKeyCheck, type WebhookKeyRing } from './api-key.js';
import { WebhookError } from './errors.js';

/** Default limit of a POST /execute body: 1 MiB (config webhook.max_body_bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The slice of the store the webhook routes read: runs (GET /runs/:run_id) and approvals. They
 * write no run: POST /execute queues through the run door (`runs`), and approval decisions go
 * through the workflow door (`workflows`).
 */
export type WebhookStore = Pick<Store, 'approvals'> & { readonly runs: RunReader };

/** What the webhook router needs; the app builds these once. */
export interface WebhookRouterDeps {
  store: WebhookStore;
  /** The one door for runs: the run is written `queued` and a worker (here or elsewhere) takes it. */
  runs: Pick<RunDoor, 'submit'>;
  logger: Logger;
  /** config webhook.enabled: without it POST /execute does not exist (404 like any unknown route). */
  enabled: boolean;
  /**
   * config webhook.api_key / JUNCTION_WEBHOOK_API_KEY, held by service-kit's `keyRing`; when it
   * holds a key, every route needs `Authorization: Bearer <key>` — an approval URL carrying its
   * own signed `?token=` excepted.
   */
  keys?: WebhookKeyRing;
  /** Largest accepted body in bytes (config webhook.max_body_bytes). Default 1 MiB. */
  maxBodyBytes?: number;
  /** The door for workflow runs: with it the approval URLs (/workflow-approvals/…) are served; without it they are 404. */
  workflows?: WorkflowDoor;
  /** The clock of the approval page (whether an approval is past its expiry). */
  now?: () => Date;
}

/** What every webhook route's handler is built from. */
export interface WebhookContext {
  deps: WebhookRouterDeps;
  /** The logger of the webhook routes (and of their error handler). */
  logger: Logger;
  /** The checked body limit (webhook.max_body_bytes, default 1 MiB). */
  maxBodyBytes: number;
  /** Why the webhook key refuses a request, or undefined. */
  keyRefusal: ApiKeyCheck;
}

/** The logger of the webhook routes and their error handler. */
export function webhookLogger(deps: WebhookRouterDeps): Logger {
  return deps.logger.child({ component: 'webhook' });
}

/** Checks the deps and builds what the routes share; OPTIONS_INVALID for an unusable body limit. */
export function createWebhookContext(deps: WebhookRouterDeps, logger: Logger): WebhookContext {
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new WebhookError(
      'OPTIONS_INVALID',
      `maxBodyBytes must be a positive whole number of bytes; got ${String(maxBodyBytes)}.`,
    );
  }
  return { deps, logger, maxBodyBytes, keyRefusal: apiKeyCheck(deps.keys) };
}
