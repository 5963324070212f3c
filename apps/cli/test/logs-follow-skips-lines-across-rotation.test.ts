// `junction logs -f` across a rotation of the log file: the lines written to the file after the
// follower's last look and before the rename are delivered too, then the new file's, each once
// (found in review: the follower restarted at the new file and skipped them).
import {
  appendFileSync,
  linkSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { LogFollower, readLastRecords } from '../src/log-file.js';

let dir: string;
let follower: LogFollower | undefined;
afterEach(() => {
  follower?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('delivers the old file’s last lines and the new file’s, each once, in order', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-follow-'));
  const file = path.join(dir, 'junction.log');
  writeFileSync(file, 'before\n');
  const seen: string[] = [];
  follower = new LogFollower(file, { offset: 0, pollMs: 20, onLine: (line) => seen.push(line) });
  follower.start();
  await eventually('the first line', () => seen.length === 1);

  // Written and rotated in one turn of the event loop: the follower cannot look in between.
  appendFileSync(file, 'last of the old file\n');
  renameSync(file, `${file}.1`);
  writeFileSync(file, 'first of the new file\n');

  await eventually('the new file’s line', () => seen.includes('first of the new file'));
  appendFileSync(file, 'and one more\n');
  await eventually('the line after it', () => seen.includes('and one more'));
  expect(seen).toEqual(['before', 'last of the old file', 'first of the new file', 'and one more']);
});

it('starts again at 0 when the file is truncated in place', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-follow-'));
  const file = path.join(dir, 'junction.log');
  writeFileSync(file, 'one\ntwo\n');
  const seen: string[] = [];
  follower = new LogFollower(file, { offset: 0, pollMs: 20, onLine: (line) => seen.push(line) });
  follower.start();
  await eventually('the two lines', () => seen.length === 2);
  writeFileSync(file, 'three\n');
  await eventually('the line after the truncation', () => seen.includes('three'));
  expect(seen).toEqual(['one', 'two', 'three']);
});

const line = (msg: string): string =>
  `${JSON.stringify({ level: 'info', ts: '2026-11-29T00:00:00.000Z', msg })}\n`;

it('reads the last lines once when a rotation moved the file just read to .1', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-follow-'));
  const file = path.join(dir, 'junction.log');
  writeFileSync(`${file}.2`, line('older'));
  writeFileSync(file, line('newest'));
  // What a reader sees when a rotation lands between its two reads: `.1` is the file it read.
  linkSync(file, `${file}.1`);
  const read = await readLastRecords(file, 5, {});
  expect(read?.records.map((r) => r.msg)).toEqual(['older', 'newest']);
  expect(read?.inode).toBe(statSync(file).ino);
});

it('follows from the start a file other than the one the offset is in', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-follow-'));
  const file = path.join(dir, 'junction.log');
  writeFileSync(file, 'one\ntwo\n');
  const read = statSync(file);
  // Rotated after the last lines were read and before the follower's first look.
  renameSync(file, `${file}.1`);
  writeFileSync(file, 'three and four\nfive\n');
  const seen: string[] = [];
  follower = new LogFollower(file, {
    offset: read.size,
    inode: read.ino,
    pollMs: 20,
    onLine: (l) => seen.push(l),
  });
  follower.start();
  await eventually('the new file’s lines', () => seen.includes('five'));
  expect(seen).toEqual(['three and four', 'five']);
});
