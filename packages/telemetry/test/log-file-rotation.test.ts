// The log file is rotated by size (issue 33 §6: a long-running serve filled the disk): a write
// that would pass the limit moves junction.log to junction.log.1 (older ones one further, the
// oldest deleted) and begins a new file. Several processes append to one file; however they
// interleave, no line is lost or split, and the file never grows far past its limit.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureBuilt } from '@junction/tooling/fixtures/built-package.mjs';
import { createLogger } from '../src/index.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-log-rotation-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every JSON line of the log and its rotated files, and the size of each file. */
function readAll(file: string): { lines: string[]; sizes: Record<string, number> } {
  const base = path.basename(file);
  const names = readdirSync(path.dirname(file)).filter(
    (name) => name === base || name.startsWith(`${base}.`),
  );
  const lines: string[] = [];
  const sizes: Record<string, number> = {};
  for (const name of names) {
    const full = path.join(path.dirname(file), name);
    sizes[name] = statSync(full).size;
    lines.push(
      ...readFileSync(full, 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
  }
  return { lines, sizes };
}

describe('log file rotation', () => {
  it('rotates at the size limit, keeps `keep` files and deletes the oldest', async () => {
    const file = path.join(dir, 'one', 'junction.log');
    const logger = createLogger({
      level: 'info',
      stream: new (await import('node:stream')).PassThrough(),
      file,
      fileRotation: { maxBytes: 2000, keep: 2 },
      env: {},
    });
    for (let i = 0; i < 100; i += 1) logger.info('line', { n: i, pad: 'x'.repeat(60) });
    await logger.close();
    const { lines, sizes } = readAll(file);
    expect(Object.keys(sizes).sort()).toEqual(['junction.log', 'junction.log.1', 'junction.log.2']);
    for (const size of Object.values(sizes)) expect(size).toBeLessThanOrEqual(2000);
    // Every line is whole JSON, and the newest are kept in order: .2, .1, then the file.
    const numbers = [
      ...readFileSync(`${file}.2`, 'utf8').split('\n'),
      ...readFileSync(`${file}.1`, 'utf8').split('\n'),
      ...readFileSync(file, 'utf8').split('\n'),
    ]
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { n: number }).n);
    expect(numbers.at(-1)).toBe(99);
    expect(numbers).toEqual(numbers.map((_n, i) => (numbers[0] as number) + i));
    // Older lines went with the deleted file; what is kept is three files' worth.
    expect(lines.length).toBeLessThan(100);
    expect(lines.length).toBeGreaterThan(20);
  });

  it('writes a line longer than the limit whole, into a file of its own', async () => {
    const file = path.join(dir, 'long', 'junction.log');
    const logger = createLogger({
      stream: new (await import('node:stream')).PassThrough(),
      file,
      fileRotation: { maxBytes: 500, keep: 3 },
      env: {},
    });
    logger.info('short');
    logger.info('long', { pad: 'y'.repeat(2000) });
    logger.info('after');
    await logger.close();
    const messages = (name: string): string[] =>
      readFileSync(path.join(dir, 'long', name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages('junction.log.2')).toEqual(['short']);
    expect(messages('junction.log.1')).toEqual(['long']);
    expect(messages('junction.log')).toEqual(['after']);
  });

  it('follows a rotation made by another writer, even when its own line would still fit', async () => {
    const file = path.join(dir, 'follow', 'junction.log');
    const quiet = (await import('node:stream')).PassThrough;
    const serve = createLogger({
      stream: new quiet(),
      file,
      fileRotation: { maxBytes: 2000, keep: 3 },
      env: {},
    });
    const cli = createLogger({
      stream: new quiet(),
      file,
      fileRotation: { maxBytes: 2000, keep: 3 },
      env: {},
    });
    serve.info('serve before');
    // The other writer fills the file and rotates it.
    for (let i = 0; i < 20; i += 1) cli.info('cli', { n: i, pad: 'c'.repeat(60) });
    serve.info('serve after');
    await serve.close();
    await cli.close();
    const current = readFileSync(file, 'utf8');
    expect(current).toContain('"serve after"');
    expect(readFileSync(`${file}.1`, 'utf8')).not.toContain('"serve after"');
  });

  it('makes the file again when its folder was removed, and deletes rotated files past a lowered keep', async () => {
    const folder = path.join(dir, 'removed');
    const file = path.join(folder, 'junction.log');
    const quiet = (await import('node:stream')).PassThrough;
    const logger = createLogger({
      stream: new quiet(),
      file,
      fileRotation: { maxBytes: 500, keep: 2 },
      env: {},
    });
    logger.info('first');
    rmSync(folder, { recursive: true, force: true });
    logger.info('after the folder went');
    // Left by an earlier keep of 5.
    for (const n of [1, 2, 3, 4, 5]) writeFileSync(`${file}.${n}`, `old ${n}\n`);
    logger.info('fill', { pad: 'f'.repeat(600) });
    await logger.close();
    expect(readFileSync(`${file}.1`, 'utf8')).toContain('"after the folder went"');
    expect(readFileSync(`${file}.2`, 'utf8')).toBe('old 1\n');
    for (const n of [3, 4, 5]) expect(existsSync(`${file}.${n}`)).toBe(false);
  });

  it('waits for a lock another writer holds, and takes over one a killed writer left', async () => {
    const folder = path.join(dir, 'locks');
    const file = path.join(folder, 'junction.log');
    const quiet = (await import('node:stream')).PassThrough;
    mkdirSync(folder, { recursive: true });
    writeFileSync(`${file}.lock`, 'another writer');
    const logger = createLogger({
      stream: new quiet(),
      file,
      fileRotation: { maxBytes: 500, keep: 2 },
      env: {},
    });
    logger.info('one', { pad: 'a'.repeat(400) });
    logger.info('two', { pad: 'b'.repeat(400) });
    // Held: nothing rotated, nothing lost, the holder's lock left alone.
    expect(existsSync(`${file}.1`)).toBe(false);
    expect(readFileSync(file, 'utf8')).toContain('"two"');
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe('another writer');
    // Its holder was killed long ago.
    const past = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, past, past);
    logger.info('three', { pad: 'c'.repeat(400) });
    await logger.close();
    expect(readFileSync(`${file}.1`, 'utf8')).toContain('"two"');
    expect(readFileSync(file, 'utf8')).toContain('"three"');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('loses no line when two processes append to and rotate the same file', async () => {
    ensureBuilt(packageDir);
    const file = path.join(dir, 'shared', 'junction.log');
    // Each writer logs 400 numbered lines of ~120 bytes; 20 files of 16 KiB hold all of them.
    const writer = `
      const { createLogger } = await import(${JSON.stringify(path.join(packageDir, 'dist', 'index.js'))});
      const logger = createLogger({ stream: new (await import('node:stream')).PassThrough(), file: process.argv[1],
        fileRotation: { maxBytes: 16384, keep: 20 }, env: {} });
      for (let i = 0; i < 400; i += 1) logger.info('line', { writer: process.argv[2], n: i, pad: 'z'.repeat(40) });
      await logger.close();`;
    const run = promisify(execFile);
    await Promise.all(
      ['a', 'b'].map((name) =>
        run(process.execPath, ['--input-type=module', '-e', writer, file, name]),
      ),
    );
    const { lines, sizes } = readAll(file);
    const seen = lines.map((line) => JSON.parse(line) as { writer: string; n: number });
    for (const name of ['a', 'b']) {
      const numbers = seen
        .filter((record) => record.writer === name)
        .map((record) => record.n)
        .sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: 400 }, (_v, i) => i));
    }
    expect(Object.keys(sizes).length).toBeGreaterThan(3);
    // The other writer may append between one's look and its write: a little over, never far.
    for (const size of Object.values(sizes)) expect(size).toBeLessThanOrEqual(16384 + 4096);
  });
});
