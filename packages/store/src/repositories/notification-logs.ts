import { and, desc, eq, gte, type SQL } from 'drizzle-orm';
import type { NotificationLog } from '../rows.js';
import { notificationLogs } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { resolvePage, type Page } from '../paging.js';

/** One outbound webhook delivery attempt. */
export interface NotificationLogInput {
  /** `webhook_sent` for every delivery, per the spec. */
  eventType: string;
  url: string;
  payload?: unknown;
  attempt?: number;
  responseStatus?: number | null;
  error?: string | null;
  durationMs?: number | null;
}

export interface NotificationLogFilter extends Page {
  eventType?: string;
  since?: Date;
}

/** The `notification_logs` table: a row per outbound webhook attempt. */
export class NotificationLogsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Records one delivery attempt, stamped now. */
  async append(input: NotificationLogInput): Promise<NotificationLog> {
    const now = this.#ctx.now();
    return this.#ctx.write('record notification', async (db) => {
      const [row] = await db
        .insert(notificationLogs)
        .values({
          eventType: input.eventType,
          url: input.url,
          payload: input.payload ?? null,
          attempt: input.attempt ?? 1,
          responseStatus: input.responseStatus ?? null,
          error: input.error ?? null,
          durationMs: input.durationMs ?? null,
          createdAt: now,
        })
        .returning();
      return row as NotificationLog;
    });
  }

  /** Delivery attempts matching the filter, newest first. */
  async list(filter: NotificationLogFilter = {}): Promise<NotificationLog[]> {
    const { limit, offset } = resolvePage(filter);
    const where: SQL[] = [];
    if (filter.eventType !== undefined)
      where.push(eq(notificationLogs.eventType, filter.eventType));
    if (filter.since !== undefined) where.push(gte(notificationLogs.createdAt, filter.since));
    return this.#ctx.read('list notifications', (db) =>
      db
        .select()
        .from(notificationLogs)
        .where(and(...where))
        .orderBy(desc(notificationLogs.id))
        .limit(limit)
        .offset(offset),
    );
  }
}
