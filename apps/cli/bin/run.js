#!/usr/bin/env node
// The junction CLI entry point. `--version` and the top-level help are answered from the
// manifests without loading oclif; everything else goes to oclif, which loads only the
// command that runs (oclif.manifest.json, written by the build).
import { fileURLToPath } from 'node:url';
import { quickAnswer } from '../dist/quick-answers.js';

const answer = quickAnswer(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url)));
if (answer !== undefined) {
  process.stdout.write(answer);
} else {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
