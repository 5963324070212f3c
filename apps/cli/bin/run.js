#!/usr/bin/env node
// The junction CLI entry point. `--version` and the top-level help are answered from the
// manifests without loading oclif; everything else goes to oclif (bundled with the commands in
// dist/bundle), which loads only the command that runs (oclif.manifest.json, written by the
// build).
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { quickAnswer } from '../dist/quick-answers.js';

// Node ≥ 22.1 keeps the code it compiled between runs (in the temporary folder): most of a
// command's start is compiling the ~500 modules it imports. Node 20 has no such cache.
module.enableCompileCache?.();

const answer = quickAnswer(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url)));
if (answer !== undefined) {
  process.stdout.write(answer);
} else {
  // As it loads, oclif checks Node against its own engines field (node >= 18), loading semver
  // for it on every start; a Node that runs Junction (>= 20.6) always passes. Off for that
  // import only, so no child process inherits the setting.
  const quiet = process.env.OCLIF_DISABLE_ENGINE_WARNING;
  process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  const { execute } = await import('../dist/bundle/main.js');
  if (quiet === undefined) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
  else process.env.OCLIF_DISABLE_ENGINE_WARNING = quiet;
  await execute({ dir: import.meta.url });
}
