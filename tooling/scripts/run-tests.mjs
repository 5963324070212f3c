#!/usr/bin/env node
// Runs the tests of every workspace package, two packages at a time (JUNCTION_TEST_PACKAGES
// sets another number), those with the most test files first: the longest never runs alone at
// the end while a core waits. Each package runs its own `test` script (jest with its own
// workers, writing reports/jest.json for jest-summary.mjs); a failure does not stop the others.
// Lines are prefixed with the package's name; the exit code is non-zero when any package failed.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { testedPackages } from './workspace-packages.mjs';

const concurrency = Number(process.env.JUNCTION_TEST_PACKAGES ?? 2);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(
    `JUNCTION_TEST_PACKAGES must be a whole number ≥ 1, not "${process.env.JUNCTION_TEST_PACKAGES}"`,
  );
  process.exit(2);
}

/** How many test files a folder holds (test/ and src/, at any depth). */
function testFiles(folder) {
  return ['test', 'src'].reduce((n, sub) => {
    try {
      const names = readdirSync(path.join(folder, sub), { recursive: true });
      return n + names.filter((f) => String(f).endsWith('.test.ts')).length;
    } catch {
      return n;
    }
  }, 0);
}

const queue = testedPackages()
  .map((p) => ({ ...p, weight: testFiles(p.folder) }))
  .sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
const children = new Set();
const failed = [];

function runOne(pkg) {
  return new Promise((resolve) => {
    const prefix = `${pkg.name}:test: `;
    console.log(`${prefix}> ${pkg.test}`);
    const child = spawn('sh', ['-c', pkg.test], {
      cwd: pkg.folder,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, so a stop reaches jest and its workers, not only the shell.
      detached: true,
      env: {
        ...process.env,
        PATH: `${path.join(pkg.folder, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
      },
    });
    children.add(child);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => console.log(prefix + line));
    }
    child.on('close', (code, signal) => {
      children.delete(child);
      if (code !== 0) {
        failed.push(pkg.name);
        console.log(`${prefix}failed (${signal ?? `exit ${code}`})`);
      }
      resolve();
    });
  });
}

async function lane() {
  for (let pkg = queue.shift(); pkg; pkg = queue.shift()) await runOne(pkg);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // Stopped: no package not started yet starts, and the running ones are told.
    queue.length = 0;
    for (const child of children) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Ended already.
      }
    }
    process.exitCode = 1;
  });
}
await Promise.all(Array.from({ length: concurrency }, lane));
if (failed.length > 0) {
  console.log(`tests failed in: ${failed.join(', ')}`);
  process.exitCode = 1;
}
