// Regression: every open of the store ran drizzle's migrator, which reads and hashes every SQL
// migration file, although an up-to-date database needs none of them. An open now asks the
// database for its newest recorded migration and runs the migrator only when one is pending.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { acquireConnection, releaseConnection, type Connection } from '../src/connection.js';
import { migrationsFolder, openStore } from '../src/index.js';
import { runMigrations } from '../src/migrations.js';
import { makeTempDir } from './helpers.js';

interface Journal {
  entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
}

const journalOf = (folder: string): Journal =>
  JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;

async function recorded(conn: Connection): Promise<number> {
  const result = await conn.client.execute('SELECT count(*) FROM __drizzle_migrations');
  return Number(result.rows[0]?.[0]);
}

describe('opening an up-to-date store', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let conn: Connection | undefined;
  beforeEach(async () => {
    temp = makeTempDir();
    const store = await openStore({ url: path.join(temp.dir, 'j.db') });
    await store.close();
    conn = await acquireConnection(
      { kind: 'file', path: path.join(temp.dir, 'j.db') },
      { busyTimeoutMs: 1000 },
    );
  });
  afterEach(async () => {
    if (conn) await releaseConnection(conn);
    temp.cleanup();
  });

  it('reads no migration SQL file (they may all be gone) and records nothing', async () => {
    const folder = path.join(temp.dir, 'no-sql');
    fs.cpSync(migrationsFolder(), folder, { recursive: true });
    for (const entry of journalOf(folder).entries) fs.rmSync(path.join(folder, `${entry.tag}.sql`));
    const before = await recorded(conn!);
    await expect(runMigrations(conn!.db, folder)).resolves.toBeUndefined();
    expect(await recorded(conn!)).toBe(before);
  });

  it('still applies a migration that is pending, and only that one', async () => {
    const folder = path.join(temp.dir, 'one-more');
    fs.cpSync(migrationsFolder(), folder, { recursive: true });
    const journal = journalOf(folder);
    const last = journal.entries[journal.entries.length - 1]!;
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag: '9999_pinned' });
    fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
    fs.writeFileSync(path.join(folder, '9999_pinned.sql'), 'CREATE TABLE pinned (id integer);');
    const before = await recorded(conn!);
    await runMigrations(conn!.db, folder);
    expect(await recorded(conn!)).toBe(before + 1);
    const table = await conn!.client.execute(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'pinned'",
    );
    expect(table.rows.length).toBe(1);
  });
});
