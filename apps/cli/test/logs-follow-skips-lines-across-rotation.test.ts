// `junction logs -f` across a rotation of the log file: the lines written to the file after the
// follower's last look and before the rename are delivered too, then the new file's, each once
// (found in review: the follower restarted at the new file and skipped them).
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { LogFollower } from '../src/log-file.js';

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
