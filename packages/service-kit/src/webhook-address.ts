// Where approval links point: the one rule for every process. webhook.public_url when it is set
// (how callers reach the webhook port, whatever port it listens on); otherwise the webhook port
// as this process listens on it, or as a running serve of this workspace listens on it (the
// note it leaves in the config folder, as the trace receiver does), or else as config says.
import { defaultWebhookUrl, type Config } from '@junction/config-templates';
import { leaveProcessNote, notePath, readProcessNote, removeProcessNote } from './process-note.js';

/** The note a process listening on the webhook port leaves in the config folder. */
export const WEBHOOK_NOTE = 'webhook-address.json';

type WebhookConfig = Pick<Config, 'api' | 'webhook'>;

/** True when webhook.public_url was set (it differs from the default made of host and port). */
function publicUrlSet(config: WebhookConfig): boolean {
  return config.webhook.public_url !== defaultWebhookUrl(config.api.host, config.webhook.port);
}

/**
 * The webhook address a running serve (or webhook-server) of this workspace left its note for,
 * when its process is still alive.
 */
export function findLocalWebhook(configHome: string): string | undefined {
  return readProcessNote(notePath(configHome, WEBHOOK_NOTE));
}

/**
 * The base URL approval links point at (see the file comment): `listeningPort` is the webhook
 * port this process listens on; `configHome` finds a running serve's.
 */
export function approvalBaseUrl(
  config: WebhookConfig,
  where: { listeningPort?: number; configHome?: string } = {},
): string {
  if (publicUrlSet(config)) return config.webhook.public_url;
  if (where.listeningPort !== undefined)
    return defaultWebhookUrl(config.api.host, where.listeningPort);
  const live = where.configHome === undefined ? undefined : findLocalWebhook(where.configHome);
  return live ?? config.webhook.public_url;
}

/** Leaves the note of this process's webhook address; a failure only loses the note. */
export function leaveWebhookNote(configHome: string, url: string): boolean {
  try {
    leaveProcessNote(notePath(configHome, WEBHOOK_NOTE), url);
    return true;
  } catch {
    return false;
  }
}

/** Removes the note if this process left it (another may have taken the port since). */
export function removeWebhookNote(configHome: string): void {
  removeProcessNote(notePath(configHome, WEBHOOK_NOTE));
}
