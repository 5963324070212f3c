import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import {
  CODING_SESSION_STATUSES,
  migrationsFolder,
  openStore,
  type CodingSession,
  type CodingSessionStatus,
  type Store,
} from '../src/index.js';
import { runMigrations } from '../src/migrations.js';
import { makeTempDir, manualClock, openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

describe.each(STORE_KINDS)('coding sessions on %s', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;
  let clock: ReturnType<typeof manualClock>;
  let agentId: number;

  beforeEach(async () => {
    clock = manualClock();
    ({ store, close } = await openTestStore(kind, clock.now));
    const environmentId = (await store.environments.ensure('development')).id;
    agentId = (await store.agents.create(environmentId, { name: 'coder' })).id;
  });
  afterEach(async () => {
    await close();
  });

  const queueRun = () =>
    store.runs.create({ agentId, agentName: 'coder', task: 't', source: 'api' });

  it('creates an open session with defaults and reads it back', async () => {
    const run = await queueRun();
    const session = await store.codingSessions.create({
      id: 'cs-1a2b3c4d5e6f',
      backend: 'opencode-nats',
      runId: run.id,
      agentId,
      agentName: 'coder',
      title: 'Fix the parser',
      repoUrl: 'https://example.com/repo.git',
      branch: 'main',
      workspaceName: 'repo',
    });
    expect(session).toEqual({
      id: 'cs-1a2b3c4d5e6f',
      backend: 'opencode-nats',
      status: 'open',
      runId: run.id,
      agentId,
      agentName: 'coder',
      title: 'Fix the parser',
      repoUrl: 'https://example.com/repo.git',
      branch: 'main',
      workspaceName: 'repo',
      workspacePath: null,
      backendSessionId: null,
      messageCount: 0,
      lastCommit: null,
      createdAt: clock.now(),
      updatedAt: clock.now(),
      closedAt: null,
    });
    expect(await store.codingSessions.get('cs-1a2b3c4d5e6f')).toEqual(session);
    expect(await store.codingSessions.get('cs-unknown')).toBeUndefined();

    const bare = await store.codingSessions.create({
      id: 'cs-bare',
      backend: 'opencode',
      workspaceName: 'scratch',
    });
    expect(bare).toMatchObject({
      status: 'open',
      runId: null,
      agentId: null,
      agentName: '',
      title: null,
      repoUrl: null,
      branch: null,
    });
  });

  it('refuses a duplicate id with CONFLICT and keeps the first session', async () => {
    const first = await store.codingSessions.create({
      id: 'cs-dup',
      backend: 'opencode',
      workspaceName: 'one',
    });
    await expect(
      store.codingSessions.create({ id: 'cs-dup', backend: 'opencode-nats', workspaceName: 'two' }),
    ).rejects.toMatchObject({ name: 'StoreError', code: 'CONFLICT', details: { id: 'cs-dup' } });
    expect(await store.codingSessions.get('cs-dup')).toEqual(first);
  });

  it('refuses bad input and unknown references', async () => {
    await expect(
      store.codingSessions.create({
        id: 'cs-x',
        backend: 'vim' as 'opencode',
        workspaceName: 'w',
      }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      store.codingSessions.create({ id: '', backend: 'opencode', workspaceName: 'w' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      store.codingSessions.create({
        id: 'cs-x',
        backend: 'opencode',
        workspaceName: 'w',
        runId: 9999,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_REFERENCE' });
    await expect(
      store.codingSessions.create({
        id: 'cs-x',
        backend: 'opencode',
        workspaceName: 'w',
        agentId: 9999,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_REFERENCE' });
    expect(await store.codingSessions.get('cs-x')).toBeUndefined();
    await store.codingSessions.create({ id: 'cs-x', backend: 'opencode', workspaceName: 'w' });
    await expect(store.codingSessions.update('cs-x', { messageCount: -1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('updates a session only while it is open', async () => {
    const created = await store.codingSessions.create({
      id: 'cs-upd',
      backend: 'opencode-nats',
      branch: 'main',
      workspaceName: 'repo',
    });
    clock.advance(1000);
    const updated = await store.codingSessions.update('cs-upd', {
      workspacePath: '/work/repo',
      backendSessionId: 'ses_abc',
      messageCount: 3,
      lastCommit: 'deadbeef',
    });
    expect(updated).toEqual({
      ...created,
      workspacePath: '/work/repo',
      backendSessionId: 'ses_abc',
      messageCount: 3,
      lastCommit: 'deadbeef',
      updatedAt: clock.now(),
    });
    clock.advance(1000);
    // Absent fields stay; null clears.
    const again = await store.codingSessions.update('cs-upd', { branch: 'fix', lastCommit: null });
    expect(again).toMatchObject({
      branch: 'fix',
      lastCommit: null,
      workspacePath: '/work/repo',
      messageCount: 3,
      updatedAt: clock.now(),
    });
    expect(await store.codingSessions.get('cs-upd')).toEqual(again);

    expect(await store.codingSessions.update('cs-unknown', { messageCount: 1 })).toBeUndefined();

    const closed = await store.codingSessions.close('cs-upd');
    expect(closed?.closedNow).toBe(true);
    clock.advance(1000);
    expect(await store.codingSessions.update('cs-upd', { messageCount: 9 })).toBeUndefined();
    expect(await store.codingSessions.get('cs-upd')).toEqual(closed?.session);
  });

  it('closes a session once, however many close it at the same time', async () => {
    const created = await store.codingSessions.create({
      id: 'cs-close',
      backend: 'opencode',
      workspaceName: 'repo',
    });
    clock.advance(5000);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.codingSessions.close('cs-close')),
    );
    expect(results.filter((r) => r?.closedNow === true)).toHaveLength(1);
    expect(results.filter((r) => r?.closedNow === false)).toHaveLength(7);
    const expected: CodingSession = {
      ...created,
      status: 'closed',
      closedAt: clock.now(),
      updatedAt: clock.now(),
    };
    for (const result of results) expect(result?.session).toEqual(expected);

    // Later closes see it closed, with the time it was closed kept.
    clock.advance(5000);
    expect(await store.codingSessions.close('cs-close')).toEqual({
      session: expected,
      closedNow: false,
    });
    expect(await store.codingSessions.close('cs-unknown')).toBeUndefined();
  });

  it('lists sessions newest first, by status and run', async () => {
    const runA = await queueRun();
    const runB = await queueRun();
    const make = async (id: string, runId: number | null) => {
      const session = await store.codingSessions.create({
        id,
        backend: 'opencode',
        runId,
        workspaceName: id,
      });
      clock.advance(1000);
      return session;
    };
    await make('cs-1', runA.id);
    await make('cs-2', runB.id);
    await make('cs-3', runA.id);
    await make('cs-4', null);
    await store.codingSessions.close('cs-3');
    // Two in the same millisecond: the later one first.
    await store.codingSessions.create({ id: 'cs-6', backend: 'opencode', workspaceName: 'w' });
    await store.codingSessions.create({ id: 'cs-5', backend: 'opencode', workspaceName: 'w' });

    const ids = (sessions: CodingSession[]) => sessions.map((s) => s.id);
    expect(ids(await store.codingSessions.list())).toEqual([
      'cs-5',
      'cs-6',
      'cs-4',
      'cs-3',
      'cs-2',
      'cs-1',
    ]);
    expect(ids(await store.codingSessions.list({ status: 'open' }))).toEqual([
      'cs-5',
      'cs-6',
      'cs-4',
      'cs-2',
      'cs-1',
    ]);
    expect(ids(await store.codingSessions.list({ status: 'closed' }))).toEqual(['cs-3']);
    expect(ids(await store.codingSessions.list({ runId: runA.id }))).toEqual(['cs-3', 'cs-1']);
    expect(ids(await store.codingSessions.list({ runId: runA.id, status: 'open' }))).toEqual([
      'cs-1',
    ]);
    expect(ids(await store.codingSessions.list({ limit: 2 }))).toEqual(['cs-5', 'cs-6']);
    expect(ids(await store.codingSessions.list({ limit: 2, offset: 2 }))).toEqual(['cs-4', 'cs-3']);
    await expect(store.codingSessions.list({ limit: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    const statuses: readonly CodingSessionStatus[] = CODING_SESSION_STATUSES;
    expect(statuses).toEqual(['open', 'closed']);
  });

  it('keeps the session when its run or agent is deleted, clearing the reference', async () => {
    const run = await queueRun();
    await store.runs.markFailed(run.id, { error: 'boom' });
    await store.codingSessions.create({
      id: 'cs-orphan',
      backend: 'opencode-nats',
      runId: run.id,
      agentId,
      agentName: 'coder',
      workspaceName: 'repo',
    });
    clock.advance(1000);
    expect(await store.runs.pruneOlderThan(clock.now())).toBe(1);
    expect(await store.runs.get(run.id)).toBeUndefined();
    expect(await store.codingSessions.get('cs-orphan')).toMatchObject({
      runId: null,
      agentId,
      agentName: 'coder',
      status: 'open',
    });
    expect(await store.agents.delete(agentId)).toBe(true);
    expect(await store.codingSessions.get('cs-orphan')).toMatchObject({
      runId: null,
      agentId: null,
      agentName: 'coder',
    });
  });
});

describe('the coding_sessions migration', () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.cleanup());

  async function schemaOf(dbPath: string): Promise<{ names: string[]; migrations: number }> {
    const client = createClient({ url: pathToFileURL(dbPath).href });
    try {
      const names = (
        await client.execute(
          "SELECT name FROM sqlite_master WHERE tbl_name = 'coding_sessions' ORDER BY name",
        )
      ).rows.map((row) => String(row.name));
      const migrations = Number(
        (await client.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]?.n,
      );
      return { names, migrations };
    } finally {
      client.close();
    }
  }

  const journal = (folder: string) =>
    JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
      entries: Array<{ tag: string }>;
    };

  it('ships as migration 0009_coding_sessions', () => {
    const entries = journal(migrationsFolder()).entries;
    expect(entries.map((e) => e.tag)).toContain('0009_coding_sessions');
    expect(fs.existsSync(path.join(migrationsFolder(), '0009_coding_sessions.sql'))).toBe(true);
  });

  it('creates the table and its indexes on a fresh file', async () => {
    const dbPath = path.join(temp.dir, 'fresh.db');
    const store = await openStore({ url: dbPath });
    await store.codingSessions.create({ id: 'cs-a', backend: 'opencode', workspaceName: 'w' });
    await store.close();
    const { names, migrations } = await schemaOf(dbPath);
    expect(names).toEqual(
      expect.arrayContaining([
        'coding_sessions',
        'coding_sessions_run_idx',
        'coding_sessions_status_idx',
      ]),
    );
    expect(migrations).toBe(journal(migrationsFolder()).entries.length);
  });

  it('upgrades a database made before it, keeping what was there', async () => {
    // The migrations as they stood before 0009, applied to a new file.
    const before = path.join(temp.dir, 'drizzle-before');
    fs.cpSync(migrationsFolder(), before, { recursive: true });
    const old = journal(before);
    const index = old.entries.findIndex((e) => e.tag === '0009_coding_sessions');
    expect(index).toBeGreaterThan(0);
    fs.writeFileSync(
      path.join(before, 'meta', '_journal.json'),
      JSON.stringify({ ...old, entries: old.entries.slice(0, index) }),
    );
    const dbPath = path.join(temp.dir, 'old.db');
    const client = createClient({ url: pathToFileURL(dbPath).href });
    try {
      await runMigrations(drizzle(client), before);
      await client.execute(
        "INSERT INTO environments (name, description, created_at, updated_at) VALUES ('old', '', 0, 0)",
      );
    } finally {
      client.close();
    }
    expect(await schemaOf(dbPath)).toEqual({ names: [], migrations: index });

    const store = await openStore({ url: dbPath });
    try {
      expect((await store.environments.list()).map((e) => e.name)).toEqual(['old']);
      const session = await store.codingSessions.create({
        id: 'cs-up',
        backend: 'opencode-nats',
        workspaceName: 'w',
      });
      expect(session.status).toBe('open');
    } finally {
      await store.close();
    }
    const { names, migrations } = await schemaOf(dbPath);
    expect(names).toContain('coding_sessions');
    // Every migration since, 0009 among them, was applied.
    expect(migrations).toBe(old.entries.length);
  });
});
