// Pins why the store never uses interactive transactions: for local files @libsql/client gives
// the transaction the current connection and lazily opens a new one afterwards, so every
// per-connection PRAGMA (busy_timeout) is gone — and a :memory: database vanishes entirely.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { createClient } from '@libsql/client';
import { guardClient } from '../src/guarded-client.js';
import { makeTempDir } from './helpers.js';

describe('interactive transactions on @libsql/client', () => {
  it('lose busy_timeout on a file database', async () => {
    const temp = makeTempDir();
    const client = createClient({ url: pathToFileURL(path.join(temp.dir, 't.db')).href });
    await client.execute('PRAGMA busy_timeout = 5000');
    const tx = await client.transaction('write');
    await tx.execute('CREATE TABLE t (x)');
    await tx.commit();
    expect((await client.execute('PRAGMA busy_timeout')).rows[0]?.[0]).toBe(0);
    client.close();
    temp.cleanup();
  });

  it('lose the whole :memory: database', async () => {
    const client = createClient({ url: ':memory:' });
    await client.execute('CREATE TABLE t (x)');
    const tx = await client.transaction('write');
    await tx.commit();
    await expect(client.execute('SELECT * FROM t')).rejects.toThrow(/no such table/);
    client.close();
  });

  it('are refused by the guarded client, whose batches keep the connection', async () => {
    const client = guardClient(createClient({ url: ':memory:' }));
    await expect(client.transaction('write')).rejects.toMatchObject({ code: 'STORE_QUERY_FAILED' });
    await client.batch(['CREATE TABLE t (x)', 'INSERT INTO t VALUES (1)']);
    expect((await client.execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(1);
    client.close();
  });
});
