import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { StoreError } from './store-error.js';

/** Absolute path of the checked-in drizzle-kit migrations; the same from `src/` and `dist/`. */
export function migrationsFolder(): string {
  return fileURLToPath(new URL('../drizzle', import.meta.url));
}

const MAX_ATTEMPTS = 5;

/**
 * Applies every migration not yet recorded in `__drizzle_migrations`; a second call is a no-op.
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
      { details: { folder } },
    );
  }
  let lastError: unknown;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    try {
      await migrate(db, { migrationsFolder: folder });
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
    { details: { folder, reason }, cause: lastError },
  );
}
