// Where approval links point: the one rule for every process. webhook.public_url when it is set
// (how callers reach the webhook port, whatever port it listens on); otherwise the webhook port
// as this process listens on it, or as a running serve of this workspace listens on it (the
// note it leaves in the config folder, as the trace receiver does), or else as config says.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultWebhookUrl, type Config } from '@junction/config-templates';
import { processAlive } from '@junction/agent-core/runs';

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
  try {
    const note = JSON.parse(readFileSync(path.join(configHome, WEBHOOK_NOTE), 'utf8')) as {
      pid?: unknown;
      url?: unknown;
    };
    if (typeof note.pid !== 'number' || typeof note.url !== 'string') return undefined;
    return processAlive(note.pid) ? note.url : undefined;
  } catch {
    return undefined;
  }
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
  const file = path.join(configHome, WEBHOOK_NOTE);
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ pid: process.pid, url })}\n`, { mode: 0o600 });
    renameSync(tmp, file);
    return true;
  } catch {
    return false;
  }
}

/** Removes the note if this process left it (another may have taken the port since). */
export function removeWebhookNote(configHome: string): void {
  const file = path.join(configHome, WEBHOOK_NOTE);
  try {
    const note = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
    if (note.pid === process.pid) rmSync(file, { force: true });
  } catch {
    // No note, or not ours.
  }
}
