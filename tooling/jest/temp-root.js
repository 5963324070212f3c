// Every test run gets one temporary folder of its own, set as TMPDIR before the workers start
// (they inherit it, so os.tmpdir() and mkdtemp land in it), and removed when the run ends: a
// test that forgets to clean up, or a run stopped by a failure, leaves nothing in /tmp.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const KEY = 'JUNCTION_TEST_TEMP_ROOT';

/** jest globalSetup: makes the run's folder and points TMPDIR at it. */
export async function setup() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'junction-test-'));
  process.env[KEY] = root;
  process.env.TMPDIR = root;
}

/** jest globalTeardown: removes the run's folder with everything tests left in it. */
export async function teardown() {
  const root = process.env[KEY];
  if (root) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
}
