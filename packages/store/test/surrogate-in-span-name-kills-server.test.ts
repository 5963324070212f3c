// Issue 31: an OTLP span whose name held a lone surrogate ("n\ud800") was stored as bytes that
// are not UTF-8 (SQLite's JSON decodes the escape JSON.stringify writes for it), and every later
// read of traces made the libSQL driver panic: the process aborted (exit 134), again after every
// restart. Same with an approver's name in the audit log. The reads that can abort run in a
// child process, so the test sees the abort instead of dying of it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrationsFolder } from '../src/index.js';
import { runMigrations } from '../src/migrations.js';
import { wellFormedText } from '../src/well-formed-text.js';
import { makeTempDir, openTestStore, SQLD_AVAILABLE } from './helpers.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reader = path.join(packageDir, 'test', 'fixtures', 'bad-text-reader.mjs');

interface ReadBack {
  services: { name: string; operations: string[] }[];
  rootNames: string[];
  names: string[];
  attributes: Record<string, unknown>[];
  actors: (string | null)[];
}

/** Runs the reader child; answers its exit and what it printed. */
function runReader(
  mode: string,
  where: string,
): { status: number | null; signal: string | null; out: string; err: string } {
  const child = spawnSync(process.execPath, [reader, mode, where], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, RUST_BACKTRACE: '0' },
  });
  return { status: child.status, signal: child.signal, out: child.stdout, err: child.stderr };
}

function readBack(result: ReturnType<typeof runReader>): ReadBack {
  expect({ status: result.status, signal: result.signal, stderr: result.err }).toEqual({
    status: 0,
    signal: null,
    stderr: '',
  });
  return JSON.parse(result.out.trim().split('\n').pop() ?? '{}') as ReadBack;
}

/**
 * A store file as a version before the fix left it: migrated, then a span and an audit entry
 * written as those versions wrote them — through json_each, the escape of a lone surrogate
 * decoded into bytes that are not UTF-8.
 */
async function writePreFixStore(file: string): Promise<void> {
  const client = createClient({ url: `file:${file}` });
  try {
    await runMigrations(drizzle(client), migrationsFolder());
    await client.execute({
      sql: `INSERT INTO spans (trace_id, span_id, name, kind, service_name, start_us, duration_us,
              status_code, attributes, events, resource, size_bytes, received_at)
            SELECT '0af7651916cd43dd8448eb211c80319c', '00f067aa0ba902b7', e.value ->> 0, 1,
              e.value ->> 1, 1700000000000000, 1000, 0, e.value ->> 2, '[]', '{}', 10, 0
            FROM json_each(?) AS e`,
      args: [JSON.stringify([['n\ud800', 's\udc00', JSON.stringify({ key: 'v\ud800' })]])],
    });
    await client.execute({
      sql: `INSERT INTO audit_log (at, actor, source, action, outcome)
            SELECT 0, e.value ->> 0, 'rest', 'approve', 'success' FROM json_each(?) AS e`,
      args: [JSON.stringify([['approver\ud800']])],
    });
    const hex = await client.execute('SELECT hex(name) FROM spans');
    // 'n' then ED A0 80: the surrogate's bytes, which UTF-8 does not allow.
    expect(hex.rows[0]?.[0]).toBe('6EEDA080');
  } finally {
    client.close();
  }
}

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir();
});
afterAll(() => temp.cleanup());

describe('a row stored as text that is not UTF-8, before the fix', () => {
  it('aborts a process that reads it with the bare driver (the failure this test pins)', async () => {
    const file = path.join(temp.dir, 'raw.db');
    await writePreFixStore(file);
    const result = runReader('raw', file);
    expect({ signal: result.signal, panicked: /panicked/.test(result.err) }).toEqual({
      signal: 'SIGABRT',
      panicked: true,
    });
  });

  it('is repaired when the store opens: traces and the audit log read, the process lives', async () => {
    const file = path.join(temp.dir, 'repaired.db');
    await writePreFixStore(file);
    const first = readBack(runReader('store', file));
    expect(first).toEqual({
      services: [{ name: 's\ufffd', operations: ['n\ufffd'] }],
      rootNames: ['n\ufffd'],
      names: ['n\ufffd'],
      attributes: [{ key: 'v\ufffd' }],
      actors: ['approver\ufffd'],
    });
    // The repair is on disk: the bare driver reads the file now, and a second open reads the same.
    expect(runReader('raw', file).status).toBe(0);
    expect(readBack(runReader('store', file))).toEqual(first);
  });
});

describe('text with a lone surrogate written now', () => {
  const expected: ReadBack = {
    services: [{ name: 's\ufffd', operations: ['n\ufffd'] }],
    rootNames: ['n\ufffd'],
    names: ['n\ufffd'],
    attributes: [{ key: 'v\ufffd' }],
    actors: ['link\ufffd', 'approver\ufffd'],
  };

  it('reads back with U+FFFD from a store file, and the process lives', () => {
    expect(readBack(runReader('write', path.join(temp.dir, 'new.db')))).toEqual(expected);
  });

  it('reads back with U+FFFD from an in-memory store, and the process lives', () => {
    expect(readBack(runReader('write', ':memory:'))).toEqual(expected);
  });

  (SQLD_AVAILABLE ? it : it.skip)('reads back with U+FFFD from a libSQL server', async () => {
    const { store, close } = await openTestStore('remote');
    try {
      await store.spans.insert([
        {
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: '00f067aa0ba902b7',
          parentSpanId: null,
          name: 'n\ud800',
          kind: 1,
          serviceName: 's\udc00',
          scopeName: null,
          startUs: 1_700_000_000_000_000,
          durationUs: 1000,
          statusCode: 0,
          statusMessage: null,
          attributes: { key: 'v\ud800' },
          events: [],
          resource: {},
          runId: null,
        },
      ]);
      expect(await store.spans.services()).toEqual(expected.services);
      expect((await store.spans.trace('0af7651916cd43dd8448eb211c80319c'))[0]?.attributes).toEqual({
        key: 'v\ufffd',
      });
    } finally {
      await close();
    }
  });
});

describe('wellFormedText', () => {
  it.each([
    ['a lone high surrogate', 'n\ud800', 'n\ufffd'],
    ['a lone low surrogate', '\udc00x', '\ufffdx'],
    ['a pair', 'ok \ud83d\ude00', 'ok \ud83d\ude00'],
    ['JSON with an escaped lone surrogate', '["n\\ud800"]', '["n\\ufffd"]'],
    ['JSON with an escaped pair', '["\\ud83d\\ude00"]', '["\\ud83d\\ude00"]'],
    // Two backslashes: an escape in the JSON text one of its strings holds.
    ['JSON whose string holds an escaped lone surrogate', '["\\\\ud800"]', '["\\\\ufffd"]'],
    ['JSON with two lone low halves', '["\\udc00\\udc01"]', '["\\ufffd\\ufffd"]'],
    ['JSON with a low half before a high half', '["\\udc00\\ud800"]', '["\\ufffd\\ufffd"]'],
    ['text that is not JSON', 'C:\\ud800 is a path', 'C:\\ud800 is a path'],
  ])('%s', (_what, input, output) => {
    expect(wellFormedText(input)).toBe(output);
  });

  it('JSON text inside JSON: the inner text decodes to U+FFFD', () => {
    const out = wellFormedText(JSON.stringify([JSON.stringify({ key: 'x\ud800' })]));
    const inner = (JSON.parse(out) as string[])[0] ?? '';
    expect(JSON.parse(inner)).toEqual({ key: 'x\ufffd' });
  });
});
