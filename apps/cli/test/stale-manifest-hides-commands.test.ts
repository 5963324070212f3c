// oclif.manifest.json is what oclif reads instead of importing every command module on each
// start (issue 31): a command added, removed or changed without the manifest written again
// would be missing from `junction`, from its help and from completion. The build writes it
// (scripts/write-manifest.mjs); this test fails when it is not what oclif would make now.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Command ids as oclif derives them from the files under src/commands (`agent/run.ts` → agent:run). */
function sourceCommandIds(dir = path.join(root, 'src', 'commands'), prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) {
      return sourceCommandIds(path.join(dir, entry.name), `${prefix}${entry.name}:`);
    }
    if (!entry.name.endsWith('.ts')) return [];
    const name = entry.name.slice(0, -'.ts'.length);
    return [name === 'index' ? prefix.slice(0, -1) : `${prefix}${name}`];
  });
}

describe('oclif.manifest.json', () => {
  it('is exactly what oclif makes from the built commands (else: rebuild the CLI)', () => {
    const check = spawnSync(process.execPath, ['scripts/write-manifest.mjs', '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('names every command under src/commands, and no other (else: rebuild the CLI)', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>;
    };
    expect(Object.keys(manifest.commands).sort()).toEqual(sourceCommandIds().sort());
  });
});
