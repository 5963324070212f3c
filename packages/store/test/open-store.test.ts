import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createClient } from '@libsql/client';
import { acquireConnection, releaseConnection } from '../src/connection.js';
import { openStore, StoreError, migrationsFolder } from '../src/index.js';
import { resolveStoreLocation } from '../src/store-location.js';
import { runMigrations } from '../src/migrations.js';
import { makeTempDir } from './helpers.js';

async function pragma(
  conn: Awaited<ReturnType<typeof acquireConnection>>,
  name: string,
): Promise<unknown> {
  const result = await conn.client.execute(`PRAGMA ${name}`);
  return result.rows[0]?.[0];
}

async function migrationRows(dbPath: string): Promise<number> {
  const client = createClient({ url: pathToFileURL(dbPath).href });
  try {
    return Number(
      (await client.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]?.n,
    );
  } finally {
    client.close();
  }
}

const journalEntries = (): number =>
  (
    JSON.parse(fs.readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as {
      entries: unknown[];
    }
  ).entries.length;

describe('openStore', () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.cleanup());

  it('gives every :memory: open its own database', async () => {
    const a = await openStore({ url: ':memory:' });
    const b = await openStore({ url: ':memory:' });
    await a.environments.ensure('only-in-a');
    expect(await b.environments.list()).toEqual([]);
    expect(a.location).toEqual({ kind: 'memory' });
    await a.close();
    await b.close();
  });

  it('creates the missing folders of a file database, uses WAL, and keeps data across reopen', async () => {
    const dbPath = path.join(temp.dir, 'nested', 'deeper', 'junction.db');
    const first = await openStore({ url: dbPath });
    expect(first.location).toEqual({ kind: 'file', path: dbPath });
    const env = await first.environments.ensure('production');
    const run = await first.runs.create({ agentName: 'a', task: 't', source: 'cli' });
    await first.close();
    expect(fs.existsSync(dbPath)).toBe(true);

    const raw = createClient({ url: pathToFileURL(dbPath).href });
    expect((await raw.execute('PRAGMA journal_mode')).rows[0]?.[0]).toBe('wal');
    raw.close();

    const second = await openStore({ url: `file:${dbPath}` });
    expect(await second.environments.getByName('production')).toEqual(env);
    expect(await second.runs.get(run.id)).toEqual(run);
    await second.close();
  });

  it('runs migrations only once however often the store is opened or migrated', async () => {
    const dbPath = path.join(temp.dir, 'm.db');
    const first = await openStore({ url: dbPath });
    await first.settings.set('kept', 1);
    await first.close();
    const second = await openStore({ url: dbPath });
    await second.migrate();
    await second.migrate();
    expect(await second.settings.get('kept')).toBe(1);
    await second.close();
    expect(await migrationRows(dbPath)).toBe(journalEntries());

    // The migrator itself, called twice on one connection, is just as harmless.
    const conn = await acquireConnection({ kind: 'file', path: dbPath }, { busyTimeoutMs: 1000 });
    await runMigrations(conn.db);
    await runMigrations(conn.db);
    await releaseConnection(conn);
    expect(await migrationRows(dbPath)).toBe(journalEntries());
  });

  it('shares one client per file in a process and keeps its PRAGMAs after batches', async () => {
    const dbPath = path.join(temp.dir, 'shared.db');
    const a = await openStore({ url: dbPath, busyTimeoutMs: 4321 });
    const b = await openStore({ url: pathToFileURL(dbPath).href });
    const conn = await acquireConnection({ kind: 'file', path: dbPath }, { busyTimeoutMs: 1 });
    const again = await acquireConnection(
      resolveStoreLocation(path.relative(process.cwd(), dbPath)),
      { busyTimeoutMs: 1 },
    );
    expect(again).toBe(conn);

    // A batch write (setToolIds) must not cost the connection its settings.
    const env = await a.environments.ensure('e');
    const agent = await a.agents.create(env.id, { name: 'x' });
    const server = await a.mcpServers.upsert(env.id, {
      name: 's',
      transport: 'stdio',
      command: 'c',
    });
    const list = await a.tools.replaceForServer(server.id, [{ name: 't' }]);
    await a.agents.setToolIds(
      agent.id,
      list.map((t) => t.id),
    );
    expect(await pragma(conn, 'busy_timeout')).toBe(4321);
    expect(await pragma(conn, 'foreign_keys')).toBe(1);
    expect(await pragma(conn, 'synchronous')).toBe(1); // NORMAL

    // Closing one Store leaves the others working on the shared client.
    await a.close();
    expect(await b.agents.getToolIds(agent.id)).toEqual(list.map((t) => t.id));
    await b.close();
    await releaseConnection(again);
    await releaseConnection(conn);
  });

  it('enforces foreign keys on :memory: too', async () => {
    const store = await openStore({ url: ':memory:' });
    await expect(store.agents.create(12345, { name: 'orphan' })).rejects.toMatchObject({
      code: 'INVALID_REFERENCE',
    });
    await store.close();
  });

  it('reports health: integrity ok, a size in whole pages, ping', async () => {
    const store = await openStore({ url: path.join(temp.dir, 'h.db') });
    expect(await store.integrityCheck()).toBe('ok');
    const size = await store.sizeBytes();
    expect(size).toBeGreaterThan(0);
    expect(size % 512).toBe(0);
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
  });

  it('refuses to work once closed, with STORE_CLOSED', async () => {
    const store = await openStore({ url: ':memory:' });
    await store.close();
    await store.close(); // twice is fine
    expect(store.closed).toBe(true);
    await expect(store.environments.list()).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(store.settings.set('k', 1)).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(store.ping()).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });

  it('fails with STORE_OPEN_FAILED and a hint for bad locations', async () => {
    await expect(openStore({ url: '' })).rejects.toMatchObject({ code: 'STORE_OPEN_FAILED' });
    await expect(openStore({ url: 'postgres://db/junction' })).rejects.toMatchObject({
      code: 'STORE_OPEN_FAILED',
      message: expect.stringContaining('not supported'),
    });

    const notADatabase = path.join(temp.dir, 'notes.db');
    fs.writeFileSync(
      notADatabase,
      'this is not a database, just some text that is long enough '.repeat(20),
    );
    const err = await openStore({ url: notADatabase }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ code: 'STORE_OPEN_FAILED', details: { location: notADatabase } });
    expect((err as StoreError).message).toContain('Check that the folder is writable');

    const underAFile = path.join(notADatabase, 'inside', 'x.db');
    await expect(openStore({ url: underAFile })).rejects.toMatchObject({
      code: 'STORE_OPEN_FAILED',
    });
  });
});

describe('resolveStoreLocation', () => {
  it('reads memory, paths, file: URLs and remote URLs', () => {
    expect(resolveStoreLocation(':memory:')).toEqual({ kind: 'memory' });
    expect(resolveStoreLocation('data/j.db', '/srv')).toEqual({
      kind: 'file',
      path: '/srv/data/j.db',
    });
    expect(resolveStoreLocation('file:data/j.db', '/srv')).toEqual({
      kind: 'file',
      path: '/srv/data/j.db',
    });
    expect(resolveStoreLocation('file:///var/lib/j%20b.db')).toEqual({
      kind: 'file',
      path: '/var/lib/j b.db',
    });
    expect(resolveStoreLocation('/abs/j.db')).toEqual({ kind: 'file', path: '/abs/j.db' });
    expect(resolveStoreLocation('libsql://db.example.com')).toEqual({
      kind: 'remote',
      url: 'libsql://db.example.com',
    });
    expect(resolveStoreLocation('https://db.example.com')).toEqual({
      kind: 'remote',
      url: 'https://db.example.com',
    });
  });
});
