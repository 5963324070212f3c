import type { Client } from '@libsql/client';
import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { AuditLogEntry, AuditOutcome } from '../rows.js';
import { auditLog } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { resolvePage, type Page } from '../paging.js';
import { toStoreError } from '../store-error.js';

/** One audited action, e.g. an MCP tool call. */
export interface AuditLogInput {
  actor?: string | null;
  /** Where it came from: `mcp`, `rest`, `cli`, `webhook` … (`logs audit --filter mcp` matches this). */
  source: string;
  /** How it arrived, e.g. `stdio` or `http`. */
  transport?: string | null;
  /** What was done, e.g. the tool name. */
  action: string;
  /** Already redacted by the caller. */
  arguments?: unknown;
  outcome: AuditOutcome;
  durationMs?: number | null;
  details?: unknown;
  /** Defaults to now. */
  at?: Date;
}

export interface AuditLogFilter extends Page {
  source?: string;
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  since?: Date;
  until?: Date;
}

/** Longest wait of an entry given to `record` before its group is written. */
export const AUDIT_LINGER_MS = 50;
/** Most entries one group insert writes. */
const MAX_AUDIT_BATCH = 200;

interface PendingEntry {
  /** [at, actor, source, transport, action, arguments JSON, outcome, duration, details JSON] */
  row: unknown[];
  resolve(): void;
  reject(err: unknown): void;
}

function recordRow(input: AuditLogInput, at: Date): unknown[] {
  return [
    at.getTime(),
    input.actor ?? null,
    input.source,
    input.transport ?? null,
    input.action,
    input.arguments === undefined ? null : JSON.stringify(input.arguments),
    input.outcome,
    input.durationMs ?? null,
    input.details === undefined ? null : JSON.stringify(input.details),
  ];
}

/*
 * One INSERT for any number of entries: they travel as one JSON array of rows read by
 * json_each, so the SQL text never changes and its prepared statement is reused.
 */
const INSERT_ENTRIES = `INSERT INTO audit_log
  (at, actor, source, transport, action, arguments, outcome, duration_ms, details)
  SELECT e.value ->> 0, e.value ->> 1, e.value ->> 2, e.value ->> 3, e.value ->> 4,
         e.value ->> 5, e.value ->> 6, e.value ->> 7, e.value ->> 8
  FROM json_each(?) AS e`;

/** Refusals caused by one row's values (a constraint), not by the database. */
const ROW_REFUSALS = new Set<string>(['INVALID_INPUT', 'INVALID_REFERENCE', 'CONFLICT']);

async function insertRows(db: LibSQLDatabase, batch: readonly PendingEntry[]): Promise<void> {
  const client = (db as LibSQLDatabase & { $client: Client }).$client;
  const insert = (items: readonly PendingEntry[]): Promise<unknown> =>
    client.execute({ sql: INSERT_ENTRIES, args: [JSON.stringify(items.map((i) => i.row))] });
  try {
    await insert(batch);
    for (const item of batch) item.resolve();
  } catch (err) {
    const refused = toStoreError(err, 'append audit entry');
    // Only a bad entry (a constraint) is worth telling apart; a busy or broken database
    // would refuse each alone too, after as long a wait each.
    if (batch.length === 1 || !ROW_REFUSALS.has(refused.code)) {
      for (const item of batch) item.reject(refused);
      return;
    }
    // One bad entry must not lose the others: each alone.
    for (const item of batch) {
      await insert([item]).then(
        () => item.resolve(),
        (single: unknown) => item.reject(toStoreError(single, 'append audit entry')),
      );
    }
  }
}

/** The local audit trail. */
export class AuditLogRepository {
  readonly #ctx: StoreContext;

  /** Entries `record` holds for the next group insert. */
  readonly #pending: PendingEntry[] = [];
  /** Group inserts handed to the write queue and not yet done. */
  readonly #writing = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Appends an entry. */
  async append(input: AuditLogInput): Promise<AuditLogEntry> {
    const at = input.at ?? this.#ctx.now();
    return this.#ctx.write('append audit entry', async (db) => {
      const [row] = await db
        .insert(auditLog)
        .values({
          at,
          actor: input.actor ?? null,
          source: input.source,
          transport: input.transport ?? null,
          action: input.action,
          arguments: input.arguments ?? null,
          outcome: input.outcome,
          durationMs: input.durationMs ?? null,
          details: input.details ?? null,
        })
        .returning();
      return row as AuditLogEntry;
    });
  }

  /**
   * Appends an entry without reading it back: the cheap form for a hot path (every MCP call).
   * Entries are written in groups — one INSERT at most every AUDIT_LINGER_MS, or as soon as
   * MAX_AUDIT_BATCH wait — and the promise settles when the entry's group is written. `list`
   * and `close` write what waits first, so this process always reads its own entries.
   */
  async record(input: AuditLogInput): Promise<void> {
    const row = recordRow(input, input.at ?? this.#ctx.now());
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ row, resolve, reject });
      if (this.#pending.length >= MAX_AUDIT_BATCH) void this.flush();
      else this.#timer ??= setTimeout(() => void this.flush(), AUDIT_LINGER_MS);
    });
  }

  /**
   * Writes every entry `record` holds now; resolves once they — and any group already on its
   * way to the database — are written (or refused).
   */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0);
    if (batch.length > 0) {
      const written = this.#ctx
        .write('append audit entries', (db) => insertRows(db, batch))
        .catch((err: unknown) => {
          // The write never ran (say, the store is closed): everyone waiting hears why.
          for (const item of batch) item.reject(err);
        })
        .finally(() => this.#writing.delete(written));
      this.#writing.add(written);
    }
    await Promise.all([...this.#writing]);
  }

  /** Entries matching the filter, newest first. */
  async list(filter: AuditLogFilter = {}): Promise<AuditLogEntry[]> {
    await this.flush();
    const { limit, offset } = resolvePage(filter);
    const where: SQL[] = [];
    if (filter.source !== undefined) where.push(eq(auditLog.source, filter.source));
    if (filter.actor !== undefined) where.push(eq(auditLog.actor, filter.actor));
    if (filter.action !== undefined) where.push(eq(auditLog.action, filter.action));
    if (filter.outcome !== undefined) where.push(eq(auditLog.outcome, filter.outcome));
    if (filter.since !== undefined) where.push(gte(auditLog.at, filter.since));
    if (filter.until !== undefined) where.push(lt(auditLog.at, filter.until));
    return this.#ctx.read('list audit entries', (db) =>
      db
        .select()
        .from(auditLog)
        .where(and(...where))
        .orderBy(desc(auditLog.at), desc(auditLog.id))
        .limit(limit)
        .offset(offset),
    );
  }

  /** Deletes entries older than `before`; returns how many. */
  async pruneOlderThan(before: Date): Promise<number> {
    await this.flush();
    return this.#ctx.write('prune audit entries', async (db) => {
      const result = await db.delete(auditLog).where(lt(auditLog.at, before));
      return result.rowsAffected;
    });
  }
}
