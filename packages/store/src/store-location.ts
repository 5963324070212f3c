import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { StoreError } from './store-error.js';

/** Where a store lives: an in-memory database, a local file, or a remote libSQL server. */
export type StoreLocation =
  | { kind: 'memory' }
  | { kind: 'file'; path: string }
  | { kind: 'remote'; url: string };

const REMOTE_SCHEMES = ['libsql:', 'http:', 'https:', 'ws:', 'wss:'];

/** Reads `:memory:`, a path, a `file:` URL or a remote URL; relative paths resolve against `cwd`. */
export function resolveStoreLocation(url: string, cwd: string = process.cwd()): StoreLocation {
  const trimmed = url.trim();
  if (trimmed === ':memory:' || trimmed === 'file::memory:') return { kind: 'memory' };
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== undefined && REMOTE_SCHEMES.includes(scheme))
    return { kind: 'remote', url: trimmed };
  if (scheme === 'file:') {
    let filePath: string;
    try {
      // `file:///abs` and `file:/abs` are proper URLs; `file:relative.db` is libSQL shorthand.
      filePath = trimmed.startsWith('file:/')
        ? fileURLToPath(trimmed.split('?')[0] ?? trimmed)
        : (trimmed.slice(5).split('?')[0] ?? '');
    } catch (err) {
      throw new StoreError(
        'STORE_OPEN_FAILED',
        `The store URL ${JSON.stringify(url)} is not a valid file: URL. Use file:///absolute/path.db or a plain path.`,
        { url },
        { cause: err },
      );
    }
    return { kind: 'file', path: path.resolve(cwd, filePath) };
  }
  // One-letter "schemes" are Windows drive letters; anything longer is a scheme we cannot open.
  if (scheme !== undefined && scheme.length > 2) {
    throw new StoreError(
      'STORE_OPEN_FAILED',
      `The store URL scheme ${JSON.stringify(scheme)} is not supported. Use :memory:, a file path, file:, libsql:, http(s): or ws(s):.`,
      { url },
    );
  }
  return { kind: 'file', path: path.resolve(cwd, trimmed) };
}

/** The URL handed to @libsql/client for a resolved location. */
export function clientUrl(location: StoreLocation): string {
  switch (location.kind) {
    case 'memory':
      return ':memory:';
    case 'file':
      return pathToFileURL(location.path).href;
    case 'remote':
      return location.url;
  }
}
