import { eq, sql } from 'drizzle-orm';
import type { Lease } from '../rows.js';
import { leases } from '../schema.js';
import type { StoreContext } from '../store-context.js';

/**
 * Named leases: one holder at a time for something only one process may do (the scheduler).
 * A holder renews before its lease runs out; when it stops renewing (it died), the next
 * process to ask takes the lease over. One atomic statement per acquire.
 */
export class LeasesRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Takes the lease `name` for `owner` for `ttlMs`, or renews it if `owner` holds it already;
   * false while another owner's lease still runs.
   */
  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.#ctx.now().getTime();
    return this.#ctx.write(`take lease ${JSON.stringify(name)}`, async (db) => {
      const rows = await db
        .insert(leases)
        .values({
          name,
          owner,
          expiresAt: new Date(now + ttlMs),
          acquiredAt: new Date(now),
        })
        .onConflictDoUpdate({
          target: leases.name,
          set: {
            owner,
            expiresAt: new Date(now + ttlMs),
            // A renewal keeps when the holder first took it.
            acquiredAt: sql`CASE WHEN ${leases.owner} = ${owner} THEN ${leases.acquiredAt} ELSE ${now} END`,
          },
          setWhere: sql`${leases.owner} = ${owner} OR ${leases.expiresAt} <= ${now}`,
        })
        .returning({ owner: leases.owner });
      return rows[0]?.owner === owner;
    });
  }

  /** Gives the lease up at once (a clean stop); false if `owner` did not hold it. */
  async release(name: string, owner: string): Promise<boolean> {
    return this.#ctx.write(`release lease ${JSON.stringify(name)}`, async (db) => {
      const result = await db
        .delete(leases)
        .where(sql`${leases.name} = ${name} AND ${leases.owner} = ${owner}`);
      return result.rowsAffected > 0;
    });
  }

  /** The lease as stored (it may have run out), or undefined. */
  async get(name: string): Promise<Lease | undefined> {
    return this.#ctx.read('read lease', async (db) => {
      const [row] = await db.select().from(leases).where(eq(leases.name, name));
      return row;
    });
  }
}
