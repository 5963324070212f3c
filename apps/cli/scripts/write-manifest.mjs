// Writes oclif.manifest.json for the bundled commands (dist/bundle/commands), as `oclif manifest` does,
// through @oclif/core's own Plugin: with the manifest, oclif loads only the command that runs
// instead of importing every command module (and what they import) on each start.
// Usage: node scripts/write-manifest.mjs [--check]  (--check: exit 1 when the file is stale)
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'oclif.manifest.json');

/** The manifest oclif would make from the bundled commands now, as the text written to the file. */
export async function manifestText() {
  const plugin = new Plugin({
    root,
    type: 'core',
    ignoreManifest: true,
    errorOnManifestCreate: true,
    respectNoCacheDefault: true,
  });
  await plugin.load();
  // Sorted by id: oclif finds the command files in whatever order the file system lists them.
  const { commands, ...rest } = plugin.manifest;
  const sorted = Object.fromEntries(
    Object.entries(commands).sort(([a], [b]) => a.localeCompare(b)),
  );
  return `${JSON.stringify({ commands: sorted, ...rest }, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await manifestText();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // missing: stale
    }
    if (current !== text) {
      process.stderr.write(`${file} is stale: run \`pnpm --filter @junction/cli build\`.\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
    const count = Object.keys(JSON.parse(text).commands).length;
    process.stderr.write(`oclif.manifest.json: ${count} commands\n`);
  }
}
