import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { AuditLogEntry, AuditOutcome } from '../rows.js';
import { auditLog } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { resolvePage, type Page } from '../paging.js';
import { prepared, slot } from '../prepared.js';

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

/** The local audit trail. */
export class AuditLogRepository {
  readonly #ctx: StoreContext;

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

  /** Appends an entry without reading it back: the cheap form for a hot path (every MCP call). */
  async record(input: AuditLogInput): Promise<void> {
    const at = input.at ?? this.#ctx.now();
    await this.#ctx.write('append audit entry', (db) =>
      prepared(db, 'auditLog.record', (d) =>
        d
          .insert(auditLog)
          .values({
            at: slot('at'),
            actor: slot('actor'),
            source: slot('source'),
            transport: slot('transport'),
            action: slot('action'),
            arguments: slot('arguments'),
            outcome: slot('outcome'),
            durationMs: slot('durationMs'),
            details: slot('details'),
          })
          .prepare(),
      ).run({
        at: at.getTime(),
        actor: input.actor ?? null,
        source: input.source,
        transport: input.transport ?? null,
        action: input.action,
        arguments: input.arguments === undefined ? null : JSON.stringify(input.arguments),
        outcome: input.outcome,
        durationMs: input.durationMs ?? null,
        details: input.details === undefined ? null : JSON.stringify(input.details),
      }),
    );
  }

  /** Entries matching the filter, newest first. */
  async list(filter: AuditLogFilter = {}): Promise<AuditLogEntry[]> {
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
    return this.#ctx.write('prune audit entries', async (db) => {
      const result = await db.delete(auditLog).where(lt(auditLog.at, before));
      return result.rowsAffected;
    });
  }
}
