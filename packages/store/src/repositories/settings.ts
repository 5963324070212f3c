import { asc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Setting } from '../rows.js';
import { settings, type JsonValue } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { StoreError } from '../store-error.js';

/** Small JSON values kept by key: station identity, last sync, feature flags. */
export class SettingsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** The value under `key`, or undefined if unset. */
  async get(key: string): Promise<JsonValue | undefined>;
  /** The value under `key` checked against `schema`; INVALID_INPUT if it does not fit. */
  async get<T>(key: string, schema: z.ZodType<T>): Promise<T | undefined>;
  async get<T>(key: string, schema?: z.ZodType<T>): Promise<JsonValue | T | undefined> {
    const row = await this.#ctx.read('get setting', async (db) => {
      const [found] = await db.select().from(settings).where(eq(settings.key, key));
      return found;
    });
    if (!row) return undefined;
    if (!schema) return row.value;
    const parsed = schema.safeParse(row.value);
    if (!parsed.success) {
      throw new StoreError(
        'INVALID_INPUT',
        `The stored setting ${JSON.stringify(key)} does not have the expected shape (${parsed.error.message}); set it again.`,
        { key },
        { cause: parsed.error },
      );
    }
    return parsed.data;
  }

  /** Stores `value` under `key`, replacing any previous value. */
  async set(key: string, value: JsonValue): Promise<Setting> {
    const now = this.#ctx.now();
    return this.#ctx.write(`set setting ${JSON.stringify(key)}`, async (db) => {
      const [row] = await db
        .insert(settings)
        .values({ key, value, updatedAt: now })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } })
        .returning();
      return row as Setting;
    });
  }

  /**
   * The value under `key`, storing `value` first when it is unset: of several processes doing
   * this at once, all get the value the first one stored.
   */
  async getOrSet(key: string, value: JsonValue): Promise<JsonValue> {
    const now = this.#ctx.now();
    await this.#ctx.write(`set setting ${JSON.stringify(key)} once`, (db) =>
      db.insert(settings).values({ key, value, updatedAt: now }).onConflictDoNothing(),
    );
    return (await this.get(key)) ?? value;
  }

  /** Removes `key`; false if it was not set. */
  async delete(key: string): Promise<boolean> {
    return this.#ctx.write('delete setting', async (db) => {
      const result = await db.delete(settings).where(eq(settings.key, key));
      return result.rowsAffected > 0;
    });
  }

  /** Every setting, by key. */
  async list(): Promise<Setting[]> {
    return this.#ctx.read('list settings', (db) =>
      db.select().from(settings).orderBy(asc(settings.key)),
    );
  }
}
