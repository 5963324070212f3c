// Narrow package faces (issue 33 §2): a package exports only what another package, an app, a
// benchmark or a documented example imports, plus the types those names' signatures mention.
// A name only its own package uses stays in its module; the package's tests import it there.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { root } from './linter.js';

interface Faces {
  exported: number;
  unused: number;
  entries: Array<{ specifier: string; file: string; exported: number; unused: string[] }>;
}

describe('package faces', () => {
  it('export no name that nothing outside the package imports', async () => {
    // In its own process: TypeScript's parser loads slowly inside a test's module sandbox.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(root, 'tooling/scripts/package-faces.mjs'), '--json'],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    const faces = JSON.parse(stdout) as Faces;
    // Every entry was read: a broken read would pass with nothing to check.
    expect(faces.entries.length).toBeGreaterThan(15);
    expect(faces.exported).toBeGreaterThan(300);
    expect(
      faces.entries
        .filter((e) => e.unused.length > 0)
        .map((e) => `${e.specifier} (${e.file}): ${e.unused.join(', ')}`),
    ).toEqual([]);
  }, 120_000);
});
