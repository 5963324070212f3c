// Copies the files of app/ that tsc does not emit (the page, the stylesheet, icons) next to the
// compiled modules. `node scripts/copy-static.mjs [--out <dir>]`; the default is dist/ui.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const STATIC = /\.(html|css|svg)$/;

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const appDir = path.join(packageRoot, 'app');

const at = process.argv.indexOf('--out');
const outDir =
  at >= 0 && process.argv[at + 1]
    ? path.resolve(process.argv[at + 1])
    : path.join(packageRoot, 'dist', 'ui');

mkdirSync(outDir, { recursive: true });
const copied = readdirSync(appDir).filter((name) => STATIC.test(name));
for (const name of copied) copyFileSync(path.join(appDir, name), path.join(outDir, name));
if (!copied.includes('index.html')) {
  console.error(`copy-static: ${appDir} has no index.html`);
  process.exit(1);
}
