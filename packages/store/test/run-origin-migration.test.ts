// Migration 0014 (issue 32): a run's origin becomes columns. A store made before it is upgraded
// with the origin of its earlier runs filled in from their idempotency keys (the way the workflow
// engine, the scheduler and the station keyed them), so a workflow run started before the upgrade
// still finds its agent runs to cancel, and a run report still names the platform's run.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrationsFolder, openStore } from '../src/index.js';
import { runMigrations } from '../src/migrations.js';
import { makeTempDir } from './helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

interface Journal {
  entries: Array<{ tag: string }>;
}

it('fills the origin of runs written before it from their keys', async () => {
  const before = path.join(temp.dir, 'drizzle-before');
  fs.cpSync(migrationsFolder(), before, { recursive: true });
  const file = path.join(before, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(file, 'utf8')) as Journal;
  const index = journal.entries.findIndex((e) => e.tag === '0014_run_origin');
  expect(index).toBeGreaterThan(0);
  fs.writeFileSync(file, JSON.stringify({ ...journal, entries: journal.entries.slice(0, index) }));
  const dbPath = path.join(temp.dir, 'old.db');
  const client = createClient({ url: pathToFileURL(dbPath).href });
  const keys = [
    ['workflow', 'workflow:wf-345-checks.0.scan#1-2'],
    ['cron_scheduler', 'cron_scheduler:sched-12-1700000000000'],
    ['management', 'management:plat-run-7'],
    ['api', 'api:wf-9-not-a-workflow'],
    ['cli', null],
  ] as const;
  try {
    await runMigrations(drizzle(client), before);
    for (const [source, key] of keys) {
      await client.execute({
        sql: "INSERT INTO runs (agent_name, task, source, idempotency_key, queued_at) VALUES ('a', 't', ?, ?, 0)",
        args: [source, key],
      });
    }
  } finally {
    client.close();
  }

  const store = await openStore({ url: dbPath });
  try {
    const runs = (await store.runs.list({})).sort((a, b) => a.id - b.id);
    expect(
      runs.map((r) => [r.source, r.originWorkflowRunId, r.originScheduleId, r.originPlatformRunId]),
    ).toEqual([
      ['workflow', 345, null, null],
      ['cron_scheduler', null, 12, null],
      ['management', null, null, 'plat-run-7'],
      ['api', null, null, null],
      ['cli', null, null, null],
    ]);
    expect(await store.runs.activeIdsOfWorkflowRun(345)).toEqual([runs[0]!.id]);
  } finally {
    await store.close();
  }
});
