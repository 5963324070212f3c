// The store's own client for local databases (src/local-client.ts) must answer exactly what
// @libsql/client answers — results, row objects, values and errors — since drizzle and the
// store's error classification were written against @libsql/client. Each check runs the same
// statements on both, side by side.
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createClient, LibsqlError, type Client, type InStatement } from '@libsql/client';
import Database from 'libsql';
import { openLocalClient, type LocalClient } from '../src/local-client.js';
import { openStore } from '../src/index.js';
import { makeTempDir } from './helpers.js';

/** The driver's prototype as loaded, before any store was opened in this file. */
const driverPrototype = Object.getOwnPropertyDescriptors(Database.prototype);

const toClose: { close(): unknown }[] = [];
afterEach(async () => {
  for (const c of toClose.splice(0)) await c.close();
});

function pair(): { ours: LocalClient; theirs: Client } {
  const ours = openLocalClient(':memory:');
  const theirs = createClient({ url: ':memory:' });
  toClose.push(ours, theirs);
  return { ours, theirs };
}

/**
 * What a caller observes of a row: values by index and by name, `length`, which keys are
 * enumerable (names are, indexes are not), copies and JSON. Where the index values live is
 * not part of it: ours are read through the row's prototype (one per statement), which made
 * building rows half as dear; theirs are own properties.
 */
function shape(row: object): unknown {
  const r = row as Record<PropertyKey, unknown> & { length: number };
  return {
    length: r.length,
    values: Array.prototype.slice.call(row),
    byIndex: Array.from({ length: r.length }, (_, i) => r[i]),
    keys: Object.keys(row),
    entries: Object.entries(row),
    spread: { ...row },
    json: JSON.stringify(row),
    enumerable: Array.from({ length: r.length + 1 }, (_, i) =>
      Object.prototype.propertyIsEnumerable.call(row, i),
    ),
    lengthEnumerable: Object.prototype.propertyIsEnumerable.call(row, 'length'),
    indexWritable: (() => {
      try {
        r[0] = 'changed';
      } catch {
        // strict mode: a read-only index throws, as it does on theirs
      }
      return r[0] === 'changed';
    })(),
  };
}

/** What a caller can observe of a ResultSet, or of the error it rejects with. */
async function outcome(client: Client, stmt: InStatement): Promise<unknown> {
  try {
    const result = await client.execute(stmt);
    return {
      columns: result.columns,
      columnTypes: result.columnTypes,
      rows: result.rows.map(shape),
      rowsAffected: result.rowsAffected,
      lastInsertRowid: result.lastInsertRowid,
      json: JSON.stringify(result),
    };
  } catch (err) {
    return errorShape(err);
  }
}

function errorShape(err: unknown): unknown {
  const e = err as Error & {
    code?: unknown;
    rawCode?: unknown;
    cause?: Error & { code?: unknown };
  };
  return {
    class: e.constructor.name,
    isLibsqlError: e instanceof LibsqlError,
    name: e.name,
    message: e.message,
    code: e.code,
    rawCode: e.rawCode,
    cause: e.cause ? { name: e.cause.name, message: e.cause.message, code: e.cause.code } : null,
  };
}

const SETUP = `
  CREATE TABLE t (
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, n INTEGER, r REAL, b BLOB, j TEXT
  );
  CREATE TABLE child (id INTEGER PRIMARY KEY, t_id INTEGER NOT NULL REFERENCES t(id));
  PRAGMA foreign_keys = ON;
`;

const STATEMENTS: InStatement[] = [
  "SELECT 1 AS one, 2.5 AS half, NULL AS nothing, 'x' AS text, x'00ff10' AS blob",
  {
    sql: 'INSERT INTO t (name, n, r, b, j) VALUES (?, ?, ?, ?, ?)',
    args: ['a', 1, 1.5, new Uint8Array([1, 2, 3]), '{"k":1}'],
  },
  {
    sql: 'INSERT INTO t (name, n, b) VALUES (?, ?, ?)',
    args: ['b', 2n, new Uint8Array([9]).buffer],
  },
  { sql: 'INSERT INTO t (name, n) VALUES (?, ?)', args: ['c', true] },
  { sql: 'INSERT INTO t (name, n) VALUES (?, ?)', args: ['d', new Date(1_700_000_000_123)] },
  { sql: 'INSERT INTO t (name, n) VALUES (:name, $n)', args: { name: 'e', $n: false } },
  {
    sql: 'INSERT INTO t (name, n) VALUES (@name, ?2) RETURNING id, name AS n, n',
    args: { '@name': 'f', 2: 7 },
  },
  { sql: 'INSERT INTO t (name, n) VALUES (?, ?)', args: ['big', 9007199254740993n] },
  'SELECT * FROM t ORDER BY id',
  'SELECT id, n AS id, name FROM t ORDER BY id',
  "SELECT n FROM t WHERE name = 'big'",
  'SELECT count(*) AS c, max(id) FROM t',
  { sql: 'SELECT ?, ?', args: ['text \u00e9 \ud83d\ude00', -0] },
  { sql: 'SELECT ?', args: ['lone \ud800 surrogate'] },
  { sql: 'UPDATE t SET r = r * 2 WHERE id > ?', args: [0] },
  { sql: 'DELETE FROM t WHERE name = ?', args: ['nobody'] },
  { sql: 'INSERT INTO t (name) VALUES (?)', args: ['a'] },
  { sql: 'INSERT INTO t (name) VALUES (NULL)', args: [] },
  { sql: 'INSERT INTO child (t_id) VALUES (?)', args: [12345] },
  { sql: 'INSERT INTO child (t_id) VALUES (?)', args: [1] },
  { sql: 'SELECT json(j) FROM t WHERE name = ?', args: ['a'] },
  "SELECT json('not json')",
  'SELEC nonsense',
  'SELECT * FROM missing',
  { sql: 'SELECT ?', args: [Number.NaN] },
  { sql: 'SELECT ?', args: [2n ** 64n] },
  { sql: 'SELECT ?', args: [undefined as unknown as null] },
  { sql: 'SELECT ?, ?', args: ['only one'] },
  'PRAGMA foreign_keys',
  'PRAGMA table_info(t)',
  'PRAGMA foreign_keys = ON',
];

describe('the local client answers as @libsql/client does', () => {
  it('for results, row objects, values and errors of single statements', async () => {
    const { ours, theirs } = pair();
    await ours.executeMultiple(SETUP);
    await theirs.executeMultiple(SETUP);
    for (const stmt of STATEMENTS) {
      // Twice: the second run uses the statement the first one kept.
      for (let i = 0; i < 2; i++) {
        expect([stmt, await outcome(ours, stmt)]).toEqual([stmt, await outcome(theirs, stmt)]);
      }
    }
    // A blob comes back as an ArrayBuffer of exactly its bytes.
    const blob = (await ours.execute("SELECT b FROM t WHERE name = 'a'")).rows[0]?.b;
    expect(blob).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(blob as ArrayBuffer)]).toEqual([1, 2, 3]);
    // The string form of execute, with and without arguments.
    expect((await ours.execute('SELECT ? AS v', [5])).rows[0]?.v).toBe(5);
  });

  it('for batches: committed together, rolled back together, errors alike', async () => {
    const { ours, theirs } = pair();
    const done: unknown[] = [];
    for (const client of [ours, theirs]) {
      await client.executeMultiple(SETUP);
      const ok = await client.batch(
        [
          { sql: 'INSERT INTO t (name) VALUES (?)', args: ['x'] },
          ['INSERT INTO t (name) VALUES (?) RETURNING id', ['y']],
          'SELECT count(*) AS c FROM t',
        ],
        'write',
      );
      expect(ok[2]?.rows[0]?.c).toBe(2);
      done.push(ok.map((r) => [r.columns, r.rowsAffected, r.lastInsertRowid, r.rows.map(shape)]));
    }
    expect(done[0]).toEqual(done[1]);
    const failing: InStatement[] = [
      { sql: 'INSERT INTO t (name) VALUES (?)', args: ['z'] },
      { sql: 'INSERT INTO t (name) VALUES (?)', args: ['x'] },
    ];
    const [mine, reference] = await Promise.all([
      ours.batch(failing).catch(errorShape),
      theirs.batch(failing).catch(errorShape),
    ]);
    expect(mine).toEqual(reference);
    expect(mine).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    for (const client of [ours, theirs]) {
      expect((await client.execute('SELECT count(*) AS c FROM t')).rows[0]?.c).toBe(2);
      // The connection is usable, and not left inside a transaction.
      await client.execute('BEGIN');
      await client.execute('COMMIT');
    }
    await expect(ours.batch([], 'nonsense' as 'write')).rejects.toThrow(RangeError);
  });

  it('for migrate (foreign keys off around it) and executeMultiple', async () => {
    const { ours, theirs } = pair();
    for (const client of [ours, theirs]) {
      await client.execute('PRAGMA foreign_keys = ON');
      const results = await client.migrate([
        { sql: 'CREATE TABLE p (id INTEGER PRIMARY KEY)', args: [] },
        { sql: 'CREATE TABLE c (p_id INTEGER REFERENCES p(id))', args: [] },
        { sql: 'INSERT INTO c VALUES (?)', args: [99] },
      ]);
      expect(results.map((r) => r.rowsAffected)).toEqual([0, 0, 1]);
      expect((await client.execute('PRAGMA foreign_keys')).rows[0]?.[0]).toBe(1);
      await client.executeMultiple('INSERT INTO p VALUES (1); INSERT INTO p VALUES (2);');
      expect((await client.execute('SELECT count(*) FROM p')).rows[0]?.[0]).toBe(2);
    }
    const [mine, reference] = await Promise.all([
      ours.executeMultiple('INSERT INTO p VALUES (3); INSERT INTO p VALUES (1);').catch(errorShape),
      theirs
        .executeMultiple('INSERT INTO p VALUES (3); INSERT INTO p VALUES (1);')
        .catch(errorShape),
    ]);
    expect(mine).toEqual(reference);
    // A schema change is seen by a statement kept from before it.
    const columnsAround = async (client: Client): Promise<unknown> => {
      const before = await outcome(client, 'SELECT * FROM p ORDER BY id');
      await client.execute(`ALTER TABLE p ADD COLUMN label TEXT DEFAULT 'l'`);
      return [before, await outcome(client, 'SELECT * FROM p ORDER BY id')];
    };
    const [oursAround, theirsAround] = [await columnsAround(ours), await columnsAround(theirs)];
    expect(oursAround).toEqual(theirsAround);
    expect(oursAround).toMatchObject([{ columns: ['id'] }, { columns: ['id', 'label'] }]);
  });

  it('once closed: closed, CLIENT_CLOSED errors, and the raw reader stops too', async () => {
    const { ours, theirs } = pair();
    for (const client of [ours, theirs]) {
      await client.execute('SELECT 1');
      client.close();
      client.close(); // twice is fine
      expect(client.closed).toBe(true);
    }
    expect(await outcome(ours, 'SELECT 1')).toEqual(await outcome(theirs, 'SELECT 1'));
    expect(await ours.batch(['SELECT 1']).catch(errorShape)).toEqual(
      await theirs.batch(['SELECT 1']).catch(errorShape),
    );
    await expect(ours.rows.all('SELECT 1', [])).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    await expect(ours.rows.first('SELECT 1', [])).rejects.toMatchObject({
      code: 'CLIENT_CLOSED',
    });
    expect(ours.protocol).toBe(theirs.protocol);
  });

  it('refuses interactive transactions, sync and reconnect instead of changing connection', async () => {
    const { ours } = pair();
    await expect(ours.transaction('write')).rejects.toMatchObject({
      code: 'TRANSACTION_UNSUPPORTED',
    });
    await expect(ours.sync()).rejects.toBeInstanceOf(LibsqlError);
    expect(() => ours.reconnect()).toThrow(LibsqlError);
    expect((await ours.execute('SELECT 1 AS x')).rows[0]?.x).toBe(1);
  });
});

describe('raw rows of the local client', () => {
  it('answer plain arrays; first() never answers for the previous arguments', async () => {
    const client = openLocalClient(':memory:');
    toClose.push(client);
    const reader = client.rows;
    expect(await reader.all('SELECT 1 + ?', [41])).toEqual([[42]]);
    expect(await reader.first('SELECT ? AS a, ? AS b', ['x', 2])).toEqual(['x', 2]);
    expect(await reader.first('SELECT 1 WHERE 0', [])).toBeUndefined();
    // A value left out is NULL, not the one bound by the previous read of the same SQL.
    expect(await reader.all('SELECT ?, ?', ['a', 'b'])).toEqual([['a', 'b']]);
    expect(await reader.all('SELECT ?, ?', ['c'])).toEqual([['c', null]]);
    expect(await reader.first('SELECT ?, ?', ['a', 'b'])).toEqual(['a', 'b']);
    expect(await reader.first('SELECT ?, ?', ['c'])).toEqual(['c', null]);
    // A read that fails while stepping, or the same SQL read with all(), never leaves a
    // statement that answers the next first() for the previous arguments.
    await client.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    await client.execute(`INSERT INTO t VALUES (1, 'not json'), (2, '[2]'), (3, '[3]')`);
    const json = 'SELECT id, json(v) FROM t WHERE id = ?';
    await expect(reader.first(json, [1])).rejects.toThrow(/malformed JSON/);
    expect(await reader.first(json, [2])).toEqual([2, '[2]']);
    expect(await reader.first(json, [3])).toEqual([3, '[3]']);
    await expect(reader.all(json, [1])).rejects.toThrow(/malformed JSON/);
    expect(await reader.all(json, [2])).toEqual([[2, '[2]']]);
    const byId = 'SELECT id FROM t WHERE id = ?';
    expect(await reader.all(byId, [2])).toEqual([[2]]);
    expect(await reader.first(byId, [3])).toEqual([3]);
    expect(await reader.all(byId, [1])).toEqual([[1]]);
    // The same SQL through execute() answers the same, in @libsql/client's row objects.
    expect((await client.execute({ sql: byId, args: [3] })).rows[0]?.id).toBe(3);
    expect(await reader.first(byId, [2])).toEqual([2]);
    // Errors carry the SQLite code as @libsql/client's do.
    await expect(reader.all('SELEC', [])).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
    // Writes through execute() are seen at once (one connection).
    await client.execute({ sql: 'INSERT INTO t VALUES (?, ?)', args: [4, 'four'] });
    expect(await reader.first(byId, [4])).toEqual([4]);
  });
});

describe('the store on the local client', () => {
  it('classifies a write that waited past the busy timeout as STORE_BUSY', async () => {
    const temp = makeTempDir();
    const file = path.join(temp.dir, 'busy.db');
    const store = await openStore({ url: file, busyTimeoutMs: 50 });
    // Another connection (as another process would) holds the write lock.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(store.settings.set('k', 1)).rejects.toMatchObject({
        code: 'STORE_BUSY',
        details: { sqliteCode: 'SQLITE_BUSY' },
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await store.settings.set('k', 2);
    expect(await store.settings.get('k')).toBe(2);
    await store.close();
    temp.cleanup();
  });

  it('leaves the driver as it found it: nothing patched', async () => {
    const store = await openStore({ url: ':memory:' });
    await store.environments.list();
    await store.close();
    expect(Object.getOwnPropertyDescriptors(Database.prototype)).toEqual(driverPrototype);
  });
});
