// The audit trail of MCP tool calls: who called what, with which (redacted) arguments, and
// how it went. Writing the row must never change the answer the caller gets.
import { secretRedactor } from '@junction/agent-core/models';
import type { AuditOutcome, Store } from '@junction/store';
import { collectSecretValues, mapStrings, type Logger } from '@junction/telemetry';

/** Strings longer than this are cut in audit rows (a task may be a whole document). */
const MAX_AUDIT_STRING = 2000;

/** One tool call, as recorded. */
export interface AuditEntry {
  action: string;
  arguments: unknown;
  outcome: AuditOutcome;
  durationMs: number;
  error?: string;
  code?: string;
  /** More JSON-safe facts for the row's details (redacted like the arguments). */
  details?: Record<string, unknown>;
}

/** Writes audit rows for one MCP server (one client connection). */
export interface Auditor {
  /** Secret values and key shapes removed from `value` (also used for error texts). */
  redact(value: unknown): unknown;
  redactText(text: string): string;
  record(entry: AuditEntry, actor: string | null): Promise<void>;
  /**
   * Records once the answer has gone out: the caller never waits on the audit write (it is
   * written with others at most 50 ms later, in the same process; a crash in between loses
   * those rows).
   */
  recordAfterAnswer(entry: AuditEntry, actor: string | null): void;
}

function cut(text: string): string {
  return text.length > MAX_AUDIT_STRING
    ? `${text.slice(0, MAX_AUDIT_STRING)}… [${text.length - MAX_AUDIT_STRING} more characters]`
    : text;
}

/**
 * Top-level arguments that are strings holding a JSON object (set_schedule's schedule_variables,
 * as the reference's clients send it) redacted inside, as the object would be, and kept as text:
 * a secret-looking name in them is as secret as one in an object argument.
 */
function redactJsonTexts(args: unknown, redact: (value: unknown) => unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    out[key] = value;
    if (typeof value !== 'string' || !value.trimStart().startsWith('{')) continue;
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        out[key] = JSON.stringify(redact(parsed));
      }
    } catch {
      // Not JSON: redacted as the text it is.
    }
  }
  return out;
}

/** The row's details: the entry's own facts, then the error and its code; null when neither. */
function detailsOf(
  entry: AuditEntry,
  redact: (value: unknown) => unknown,
  redactText: (text: string) => string,
): Record<string, unknown> | null {
  if (entry.details === undefined && entry.error === undefined) return null;
  return {
    ...(entry.details !== undefined
      ? (mapStrings(redact(entry.details), cut) as Record<string, unknown>)
      : {}),
    ...(entry.error !== undefined ? { error: cut(redactText(entry.error)) } : {}),
    ...(entry.code ? { code: entry.code } : {}),
  };
}

/**
 * An auditor that redacts by key name (`*_token`, `api_key`, `password` …), by the values of
 * secret-looking variables of `processEnv`, and by key shapes (`sk-…`, bearer tokens).
 */
export function createAuditor(input: {
  store: Pick<Store, 'auditLog'>;
  logger: Logger;
  transport: 'stdio' | 'http';
  processEnv: NodeJS.ProcessEnv;
}): Auditor {
  const secrets = collectSecretValues(input.processEnv);
  const redactor = secretRedactor(secrets);
  const redactText = (text: string): string => redactor.text(text);
  const redact = (value: unknown): unknown => redactor.value(value);
  const auditor: Auditor = {
    redact,
    redactText,
    recordAfterAnswer(entry, actor): void {
      // setImmediate runs after the SDK has written the answer (a microtask after ours).
      setImmediate(() => void auditor.record(entry, actor));
    },
    async record(entry, actor): Promise<void> {
      try {
        await input.store.auditLog.record({
          source: 'mcp',
          transport: input.transport,
          actor,
          action: entry.action,
          arguments: mapStrings(redact(redactJsonTexts(entry.arguments ?? {}, redact)), cut),
          outcome: entry.outcome,
          durationMs: entry.durationMs,
          details: detailsOf(entry, redact, redactText),
        });
      } catch (err) {
        input.logger.error('writing the MCP audit row failed', {
          action: entry.action,
          error: redactText(err instanceof Error ? err.message : String(err)),
        });
      }
    },
  };
  return auditor;
}
