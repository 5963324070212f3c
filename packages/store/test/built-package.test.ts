// Tests that need the built package (dist/): several processes sharing one store file
// (serve + webhook-server + workers) — nothing may be lost, claimed twice, or corrupted — and
// the README example, run as a user would run it. Kept in one file so dist/ is built (when stale) once.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureBuilt } from '@junction/tooling/fixtures/built-package.mjs';
import { createClient } from '@libsql/client';
import { openStore } from '../src/index.js';
import { startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import { makeTempDir, SQLD_AVAILABLE } from './helpers.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const worker = path.join(packageDir, 'test', 'fixtures', 'store-worker.mjs');

interface WorkerResult {
  workerId: string;
  environmentId?: number;
  runIds?: number[];
  claimed?: number[];
}

function runWorker(args: string[]): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [worker, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`worker ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as WorkerResult);
    });
  });
}

/** Runs two workers that start their work at the same moment. */
function runPair(mode: string, dbPath: string, extra: string[] = []): Promise<WorkerResult[]> {
  const startAt = String(Date.now() + 1500);
  return Promise.all(
    ['worker-a', 'worker-b'].map((id) => runWorker([mode, dbPath, id, startAt, ...extra])),
  );
}

async function migrationRows(dbPath: string): Promise<number> {
  const client = createClient({ url: `file:${dbPath}` });
  try {
    const result = await client.execute('SELECT count(*) AS n FROM __drizzle_migrations');
    return Number(result.rows[0]?.n);
  } finally {
    client.close();
  }
}

const journalEntries = (): number =>
  (
    JSON.parse(
      fs.readFileSync(path.join(packageDir, 'drizzle', 'meta', '_journal.json'), 'utf8'),
    ) as { entries: unknown[] }
  ).entries.length;

let temp: ReturnType<typeof makeTempDir>;

beforeAll(() => {
  ensureBuilt(packageDir);
  temp = makeTempDir();
}, 120_000);
afterAll(() => temp.cleanup());

describe('README example', () => {
  it('runs and prints what its comment says', () => {
    const readme = fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    // Inside the package folder, `@junction/store` resolves to this package's own dist/.
    const script = path.join(packageDir, 'reports', 'readme-example.mjs');
    fs.mkdirSync(path.dirname(script), { recursive: true });
    fs.writeFileSync(script, code ?? '');
    const stdout = execFileSync(process.execPath, [script], { encoding: 'utf8' });
    const expected = /console\.log\(.*\/\/ (.*)\n/.exec(code ?? '')?.[1];
    expect(stdout.trim()).toBe(expected);
  });
});

describe('two processes on one store file', () => {
  it('both migrate a brand-new file at once and agree on its contents', async () => {
    const dbPath = path.join(temp.dir, 'fresh', 'junction.db');
    const [a, b] = await runPair('open', dbPath);
    expect(a?.environmentId).toBeDefined();
    expect(b?.environmentId).toBe(a?.environmentId);
    expect(await migrationRows(dbPath)).toBe(journalEntries());
    const store = await openStore({ url: dbPath });
    expect(await store.integrityCheck()).toBe('ok');
    expect((await store.environments.list()).map((e) => e.name)).toEqual(['shared']);
    await store.close();
  });

  // Regression (issue 13, item 3): processes opening a new store at once could fail with
  // SQLITE_BUSY on `PRAGMA journal_mode = WAL` (api-server and webhook-server starting together
  // on an empty volume). Twenty first starts at once must all succeed and migrate it once.
  it('twenty processes opening a brand-new file at once all succeed', async () => {
    const dbPath = path.join(temp.dir, 'twenty', 'junction.db');
    const startAt = String(Date.now() + 1500);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runWorker(['open', dbPath, `w${i}`, startAt])),
    );
    const ids = new Set(results.map((r) => r.environmentId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeDefined();
    expect(await migrationRows(dbPath)).toBe(journalEntries());
    const store = await openStore({ url: dbPath });
    expect(await store.integrityCheck()).toBe('ok');
    await store.close();
  });

  it('loses no run or event when both write 200 at the same time', async () => {
    const dbPath = path.join(temp.dir, 'writes.db');
    const setup = await openStore({ url: dbPath });
    const shared = await setup.runs.create({ agentName: 'writer', task: 'shared', source: 'cli' });
    await setup.close();

    const results = await runPair('write', dbPath, ['200', String(shared.id)]);
    const written = results.flatMap((r) => r.runIds ?? []);
    expect(written).toHaveLength(400);
    expect(new Set(written).size).toBe(400);

    const store = await openStore({ url: dbPath });
    expect(await store.runs.count({ agentName: 'writer' })).toBe(401);
    const events = await store.runEvents.list(shared.id, { limit: 1000 });
    expect(events).toHaveLength(400);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(await store.integrityCheck()).toBe('ok');
    await store.close();
  });

  it('never hands the same queued run to both, and hands out all of them', async () => {
    const dbPath = path.join(temp.dir, 'claims.db');
    const setup = await openStore({ url: dbPath });
    const queued: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      queued.push((await setup.runs.create({ agentName: 'a', task: `t${i}`, source: 'api' })).id);
    }
    await setup.close();

    const [a, b] = await runPair('claim', dbPath);
    const claimedA = a?.claimed ?? [];
    const claimedB = b?.claimed ?? [];
    expect(claimedA.filter((id) => claimedB.includes(id))).toEqual([]);
    expect([...claimedA, ...claimedB].sort((x, y) => x - y)).toEqual(queued);

    const store = await openStore({ url: dbPath });
    const running = await store.runs.list({ status: 'running', limit: 100 });
    expect(running).toHaveLength(40);
    for (const run of running) {
      expect(run.workerId).toBe(claimedA.includes(run.id) ? 'worker-a' : 'worker-b');
    }
    expect(await store.integrityCheck()).toBe('ok');
    await store.close();
  });
});

// Issue 20: hosts on a shared libSQL server. Each process is a host with its own client over
// HTTP; the server, not a file lock, serialises them.
(SQLD_AVAILABLE ? describe : describe.skip)('hosts on one libSQL server (sqld)', () => {
  let server: Sqld;
  beforeAll(async () => {
    server = await startSqld();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function remoteMigrationRows(): Promise<number> {
    const client = createClient({ url: server.url });
    try {
      const result = await client.execute('SELECT count(*) AS n FROM __drizzle_migrations');
      return Number(result.rows[0]?.n);
    } finally {
      client.close();
    }
  }

  it('ten hosts starting together on an empty server migrate it once and all open it', async () => {
    const startAt = String(Date.now() + 1500);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => runWorker(['open', server.url, `host${i}`, startAt])),
    );
    expect(new Set(results.map((r) => r.environmentId)).size).toBe(1);
    expect(results[0]?.environmentId).toBeDefined();
    expect(await remoteMigrationRows()).toBe(journalEntries());
    const store = await openStore({ url: server.url });
    expect(await store.integrityCheck()).toBe('ok');
    expect((await store.environments.list()).map((e) => e.name)).toEqual(['shared']);
    await store.close();
  });

  it('loses no run or event when three hosts write 100 each at once', async () => {
    const setup = await openStore({ url: server.url });
    const shared = await setup.runs.create({ agentName: 'writer', task: 'shared', source: 'cli' });
    await setup.close();
    const startAt = String(Date.now() + 1500);
    const results = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        runWorker(['write', server.url, id, startAt, '100', String(shared.id)]),
      ),
    );
    const written = results.flatMap((r) => r.runIds ?? []);
    expect(new Set(written).size).toBe(300);
    const store = await openStore({ url: server.url });
    const events = await store.runEvents.list(shared.id, { limit: 1000 });
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    await store.close();
  });

  it('never hands the same queued run to two hosts, and hands out all of them', async () => {
    const setup = await openStore({ url: server.url });
    const queued: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      queued.push(
        (await setup.runs.create({ agentName: 'claims', task: `t${i}`, source: 'api' })).id,
      );
    }
    await setup.close();
    const startAt = String(Date.now() + 1500);
    const results = await Promise.all(
      ['h1', 'h2', 'h3'].map((id) => runWorker(['claim', server.url, id, startAt])),
    );
    const claimed = results.flatMap((r) => r.claimed ?? []);
    expect(claimed).toHaveLength(new Set(claimed).size);
    expect(claimed.filter((id) => queued.includes(id)).sort((x, y) => x - y)).toEqual(queued);
    const store = await openStore({ url: server.url });
    for (const run of await store.runs.list({ agentName: 'claims', limit: 100 })) {
      const holder = results.find((r) => r.claimed?.includes(run.id));
      expect(run).toMatchObject({ status: 'running', workerId: holder?.workerId });
    }
    await store.close();
  });
});
