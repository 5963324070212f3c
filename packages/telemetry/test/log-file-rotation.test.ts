// The log file is rotated by size (issue 33 §6: a long-running serve filled the disk): a write
// that would pass the limit moves junction.log to junction.log.1 (older ones one further, the
// oldest deleted) and begins a new file. Several processes append to one file; however they
// interleave, no line is lost or split, and the file never grows far past its limit.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
    lines.push(...readFileSync(full, 'utf8').split('\n').filter((line) => line !== ''));
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
