// Real folders under the OS temp dir; each test file removes its own at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolvePaths } from '../src/paths.js';
import type { WorkspacePaths } from '../src/paths.js';

const made: string[] = [];

/** A fresh empty folder. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'junction-ct-'));
  made.push(dir);
  return dir;
}

/** Workspace paths inside a fresh folder (as if XDG_CONFIG_HOME pointed there). */
export async function tempPaths(): Promise<WorkspacePaths> {
  return resolvePaths({ XDG_CONFIG_HOME: await tempDir() });
}

/** Removes every folder made by this test file. */
export async function cleanup(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export async function caught(
  fn: () => unknown,
): Promise<Error & { code?: string; details?: Record<string, unknown> }> {
  try {
    await fn();
  } catch (error) {
    return error as Error & { code?: string; details?: Record<string, unknown> };
  }
  throw new Error('expected an error, but the call succeeded');
}
