import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { StoreError } from './store-error.js';

/** Absolute path of the checked-in drizzle-kit migrations; the same from `src/` and `dist/`. */
export function migrationsFolder(): string {
  return fileURLToPath(new URL('../drizzle', import.meta.url));
}

const MAX_ATTEMPTS = 5;

/** drizzle's record of applied migrations (its default name, which `migrate` is run with). */
const MIGRATIONS_TABLE = '__drizzle_migrations';

/** The `when` of the journal's newest migration: what drizzle records as `created_at`. */
function newestMigrationMillis(folder: string): number {
  const journal = JSON.parse(fs.readFileSync(`${folder}/meta/_journal.json`, 'utf8')) as {
    entries?: Array<{ when?: unknown }>;
  };
  return Math.max(0, ...(journal.entries ?? []).map((e) => Number(e.when)));
}

/**
 * True when no migration is pending, by drizzle's own rule: a migration is applied when the
 * newest `created_at` recorded is not older than its `when`. One query instead of drizzle's
 * reading and hashing of every SQL file. The table is created as drizzle's `migrate` creates it
 * (a no-op once it exists, and a write a read-only server token is refused, as before).
 */
async function upToDate(db: LibSQLDatabase, newest: number): Promise<boolean> {
  const table = sql.identifier(MIGRATIONS_TABLE);
  await db.run(
    sql`CREATE TABLE IF NOT EXISTS ${table} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
  );
  const last = await db.values<[unknown]>(
    sql`SELECT created_at FROM ${table} ORDER BY created_at DESC LIMIT 1`,
  );
  const recorded = last[0] === undefined ? undefined : Number(last[0][0]);
  return recorded !== undefined && recorded >= newest;
}

/** drizzle's migrator (it reads and hashes every SQL file), imported only when one is pending. */
async function migrate(db: LibSQLDatabase, folder: string): Promise<void> {
  const { migrate: drizzleMigrate } = await import('drizzle-orm/libsql/migrator');
  await drizzleMigrate(db, { migrationsFolder: folder, migrationsTable: MIGRATIONS_TABLE });
}

/**
 * Applies every migration not yet recorded in `__drizzle_migrations`; a second call is a no-op
 * that reads only the journal and asks the database one question.
 * Two processes opening a new file at once can both decide to migrate; the loser's batch fails
 * (table exists) once it gets the lock, and its retry then sees the winner's record and stops.
 */
export async function runMigrations(
  db: LibSQLDatabase,
  folder: string = migrationsFolder(),
): Promise<void> {
  if (!fs.existsSync(`${folder}/meta/_journal.json`)) {
    throw new StoreError(
      'STORE_MIGRATION_FAILED',
      `The migrations folder ${folder} is missing; reinstall @junction/store (its package must ship the drizzle/ folder).`,
      { folder },
    );
  }
  let lastError: unknown;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    try {
      if (!(await upToDate(db, newestMigrationMillis(folder)))) await migrate(db, folder);
      return;
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
    }
  }
  const reason =
    lastError instanceof Error
      ? lastError.cause instanceof Error
        ? lastError.cause.message
        : lastError.message
      : String(lastError);
  throw new StoreError(
    'STORE_MIGRATION_FAILED',
    `Could not bring the database schema up to date (${reason}). If a newer Junction wrote this database, upgrade; otherwise restore it from a backup.`,
    { folder, reason },
    { cause: lastError },
  );
}
