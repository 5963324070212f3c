import fs from 'node:fs';
import path from 'node:path';
import type { Client, InArgs, createClient as CreateClientFn } from '@libsql/client';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { retryWithBackoff } from '@junction/errors';
import { DEFAULT_TIMEOUT_MS, Deadline } from './deadline.js';
import { drizzleOver } from './drizzle-database.js';
import { guardClient } from './guarded-client.js';
import type { RowReader } from './direct-select.js';
import { openLocalClient } from './local-client.js';
import { runMigrations } from './migrations.js';
import { isStoreError, StoreError } from './store-error.js';
import { clientUrl, type StoreLocation } from './store-location.js';
import { wellFormedClient, wellFormedRows } from './well-formed-text.js';
import { repairInvalidText } from './text-repair.js';
import { WriteQueue } from './write-queue.js';

/** One libSQL client plus the write queue every Store on that database shares. */
export interface Connection {
  readonly location: StoreLocation;
  readonly client: Client;
  readonly db: LibSQLDatabase;
  readonly queue: WriteQueue;
  /** Rows as arrays of driver values: straight from the local connection, else the client. */
  readonly rows: RowReader;
}

interface SharedConnection extends Connection {
  readonly key: string | undefined;
  refs: number;
  ready: Promise<void>;
}

export interface ConnectOptions {
  authToken?: string;
  busyTimeoutMs: number;
  /** How long a database server may take to answer the first query (see Deadline). */
  timeoutMs?: number;
}

/** Raw rows through the client, for a remote database. */
function clientRows(client: Client): RowReader {
  const all = async (sql: string, args: unknown[]): Promise<unknown[][]> =>
    (await client.execute({ sql, args: args as InArgs })).rows.map((row) =>
      Array.prototype.slice.call(row),
    );
  return { all, first: async (sql, args) => (await all(sql, args))[0] };
}

// One client per database per process, as the architecture requires: a second client on the
// same file would be a second writer this process cannot serialise against.
const connections = new Map<string, SharedConnection>();

function cacheKey(location: StoreLocation): string | undefined {
  switch (location.kind) {
    case 'memory':
      return undefined; // every :memory: open is its own database
    case 'file':
      return `file:${location.path}`;
    case 'remote':
      return `remote:${location.url}`;
  }
}

/** Where a store is, as it may be shown: a path, `:memory:`, or a server URL without its secrets. */
export function describeLocation(location: StoreLocation): string {
  return location.kind === 'file'
    ? location.path
    : location.kind === 'remote'
      ? withoutSecrets(location.url)
      : ':memory:';
}

/**
 * A server URL as it may be shown: without user and password, and with the one secret a libSQL
 * URL's query carries (`authToken`) masked.
 */
function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    if (parsed.searchParams.has('authToken')) parsed.searchParams.set('authToken', '[REDACTED]');
    return parsed.toString();
  } catch {
    return '[a server URL that does not parse]';
  }
}

/**
 * Runs `step` again while it fails with SQLITE_BUSY, for up to `limitMs`. Switching a new file to
 * WAL takes an exclusive lock, and the busy handler does not cover every path to it: processes
 * starting together on an empty volume (api-server beside webhook-server) each wait their turn.
 */
function untilNotBusy<T>(step: () => Promise<T>, limitMs: number): Promise<T> {
  return retryWithBackoff(step, {
    firstMs: 10,
    maxMs: 200,
    forMs: limitMs,
    retryable: (err) => String((err as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY'),
  });
}

async function configure(
  client: Client,
  location: StoreLocation,
  busyTimeoutMs: number,
): Promise<void> {
  if (location.kind === 'remote') {
    // The server owns journaling, locking and foreign keys; one round trip says whether it
    // answers and takes the token, before the migrations would fail less clearly.
    await client.execute('SELECT 1');
    return;
  }
  if (location.kind === 'file') {
    await client.execute(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    const mode = await untilNotBusy(
      () => client.execute('PRAGMA journal_mode = WAL'),
      busyTimeoutMs,
    );
    const journal = String(mode.rows[0]?.[0] ?? '').toLowerCase();
    if (journal !== 'wal') {
      throw new Error(`journal_mode is ${JSON.stringify(journal)} instead of "wal"`);
    }
    // WAL + NORMAL survives process crashes; only an OS crash may lose the last commits.
    await client.execute('PRAGMA synchronous = NORMAL');
  }
  await client.execute('PRAGMA foreign_keys = ON');
}

/** `configure`, for a server bounded by the deadline: a frozen server does not hang the start. */
async function configureInTime(
  client: Client,
  location: StoreLocation,
  options: ConnectOptions,
): Promise<void> {
  const configured = configure(client, location, options.busyTimeoutMs);
  if (location.kind !== 'remote') return configured;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    await new Deadline('open the store', timeoutMs).race(configured);
  } catch (err) {
    throw isStoreError(err, 'STORE_UNAVAILABLE')
      ? new Error(`the server did not answer within ${timeoutMs} ms`)
      : err;
  }
}

type CreateClient = typeof CreateClientFn;

/**
 * @libsql/client's factory, for a server only: its remote clients (HTTP, WebSocket) are a large
 * share of a start, and a local database never uses them (see local-client.ts).
 */
async function remoteClientFactory(): Promise<CreateClient> {
  return (await import('@libsql/client')).createClient;
}

/**
 * A local database (a file or `:memory:`) gets a client of our own over the `libsql` driver
 * (see local-client.ts): drizzle and the direct reads share its one connection and its kept
 * statements. A remote one gets @libsql/client, and its rows come through it.
 */
function openClient(
  location: StoreLocation,
  options: ConnectOptions,
  createClient: CreateClient | undefined,
): { client: Client; rows: RowReader } {
  if (location.kind === 'remote') {
    if (createClient === undefined) throw new Error('the libSQL client for servers is not loaded');
    const client = wellFormedClient(
      createClient({ url: clientUrl(location), authToken: options.authToken }),
    );
    return { client, rows: clientRows(client) };
  }
  if (location.kind === 'file') {
    fs.mkdirSync(path.dirname(location.path), { recursive: true, mode: 0o700 });
    // Owner only: the store holds resolved tool-server settings in clear. SQLite gives its
    // -wal and -shm files the mode of the database file.
    fs.closeSync(fs.openSync(location.path, 'a', 0o600));
  }
  const local = openLocalClient(location.kind === 'file' ? location.path : ':memory:');
  return { client: wellFormedClient(local), rows: wellFormedRows(local.rows) };
}

/** Opens (or reuses) the process's connection to `location`, configured and migrated. */
export async function acquireConnection(
  location: StoreLocation,
  options: ConnectOptions,
): Promise<Connection> {
  // Loaded before the lookup below, which must not await before it registers a new connection.
  const createClient = location.kind === 'remote' ? await remoteClientFactory() : undefined;
  const key = cacheKey(location);
  const existing = key === undefined ? undefined : connections.get(key);
  if (existing) {
    existing.refs += 1;
    try {
      await existing.ready;
    } catch (err) {
      existing.refs -= 1;
      throw err;
    }
    return existing;
  }

  let opened: { client: Client; rows: RowReader };
  try {
    opened = openClient(location, options, createClient);
  } catch (err) {
    throw openFailed(location, err);
  }
  const { client, rows } = opened;
  const guarded = guardClient(client);
  const db = drizzleOver(guarded);
  const queue = new WriteQueue();
  const conn: SharedConnection = {
    key,
    location,
    client,
    db,
    queue,
    rows,
    refs: 1,
    ready: Promise.resolve(),
  };
  conn.ready = queue.run(async () => {
    try {
      await configureInTime(client, location, options);
    } catch (err) {
      throw openFailed(location, err);
    }
    try {
      await runMigrations(db);
      await repairInvalidText(client);
    } catch (err) {
      // A token that may read but not write fails here first: said as such, not as a schema problem.
      throw location.kind === 'remote' && remoteRefusal(err) !== undefined
        ? openFailed(location, err)
        : err;
    }
  });
  if (key !== undefined) connections.set(key, conn);
  try {
    await conn.ready;
  } catch (err) {
    if (key !== undefined && connections.get(key) === conn) connections.delete(key);
    client.close();
    throw err;
  }
  return conn;
}

/** Drops one reference to `conn`; the client closes when the last Store using it closes. */
export async function releaseConnection(conn: Connection): Promise<void> {
  const shared = conn as SharedConnection;
  shared.refs -= 1;
  if (shared.refs > 0) return;
  await shared.queue.idle();
  if (shared.key !== undefined && connections.get(shared.key) === shared)
    connections.delete(shared.key);
  shared.client.close();
}

/** What a libSQL server's refusal means for an operator, or undefined when it is not one. */
function remoteRefusal(err: unknown): string | undefined {
  const texts: string[] = [];
  // Duck-typed: errors from fetch may come from another realm (a test's VM context).
  let e = err as { message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    texts.push(String(e.message ?? ''));
    e = e.cause as typeof e;
  }
  const text = texts.join(' ');
  if (/HTTP status 401\b/.test(text)) {
    return 'The server refused the auth token (HTTP 401): set database_auth_token in config.yaml or JUNCTION_DATABASE_AUTH_TOKEN to a token the server takes.';
  }
  if (/HTTP status 403\b/.test(text)) {
    return 'The auth token may not write (HTTP 403): Junction needs a read-write token.';
  }
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT/.test(text)) {
    return 'The server did not answer: check the URL and that the libSQL server (sqld) is running and reachable from here.';
  }
  return undefined;
}

function openFailed(location: StoreLocation, err: unknown): StoreError {
  const refusal = location.kind === 'remote' ? remoteRefusal(err) : undefined;
  if (err instanceof StoreError && refusal === undefined) return err;
  const cause = err instanceof StoreError && err.cause !== undefined ? err.cause : err;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const where = describeLocation(location);
  const hint =
    location.kind === 'file'
      ? 'Check that the folder is writable and the file is a libSQL/SQLite database, or choose another database location.'
      : location.kind === 'remote'
        ? (refusal ?? 'Check the URL, that the server is reachable, and the auth token.')
        : 'This should not happen; report it with the details.';
  return new StoreError(
    'STORE_OPEN_FAILED',
    `Could not open the store at ${where} (${reason}). ${hint}`,
    { location: where, reason },
    { cause: err },
  );
}
