// Copies the files of app/ that tsc does not emit (the page, the stylesheet, icons) next to the
// compiled modules, and the packages the browser code imports into vendor/<package>/.
// `node scripts/copy-static.mjs [--out <dir>]`; the default is dist/ui.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const STATIC = /\.(html|css|svg)$/;

/**
 * Packages app/ imports as `./vendor/<package>/index.js` (types: app/vendor/<package>/index.d.ts).
 * There is no bundler, so each is copied as it ships: its ES module entry, every module that
 * entry imports (relative paths only), and its LICENSE.
 */
const VENDOR = ['eventsource-parser'];

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const appDir = path.join(packageRoot, 'app');

const at = process.argv.indexOf('--out');
const outDir =
  at >= 0 && process.argv[at + 1]
    ? path.resolve(process.argv[at + 1])
    : path.join(packageRoot, 'dist', 'ui');

function fail(message) {
  console.error(`copy-static: ${message}`);
  process.exit(1);
}

mkdirSync(outDir, { recursive: true });
const copied = readdirSync(appDir).filter((name) => STATIC.test(name));
for (const name of copied) copyFileSync(path.join(appDir, name), path.join(outDir, name));
if (!copied.includes('index.html')) fail(`${appDir} has no index.html`);

// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`.
const IMPORT = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

for (const name of VENDOR) {
  // The package's default ES module entry, as Node (and so this package's tests) resolves it.
  const entry = fileURLToPath(import.meta.resolve(name));
  if (path.basename(entry) !== 'index.js') fail(`${name} resolves to ${entry}, not an index.js`);
  const entryDir = path.dirname(entry);
  const target = path.join(outDir, 'vendor', name);
  const pending = ['index.js'];
  const seen = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = path.join(entryDir, file);
    for (const [, spec] of readFileSync(source, 'utf8').matchAll(IMPORT)) {
      const resolved = path.relative(entryDir, path.resolve(path.dirname(source), spec));
      // The browser resolves only relative URLs here, and only files copied along are served.
      if (!/^\.\.?\//.test(spec) || !spec.endsWith('.js') || resolved.startsWith('..')) {
        fail(
          `${source} imports '${spec}': only relative .js modules inside its folder can be vendored`,
        );
      }
      pending.push(resolved.split(path.sep).join('/'));
    }
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    copyFileSync(source, path.join(target, file));
  }
  // The package root: the nearest folder above the entry with the package's package.json.
  let root = entryDir;
  while (!existsSync(path.join(root, 'package.json')) && path.dirname(root) !== root) {
    root = path.dirname(root);
  }
  const license = path.join(root, 'LICENSE');
  if (!existsSync(license)) fail(`${name} has no LICENSE at ${root}`);
  copyFileSync(license, path.join(target, 'LICENSE'));
}
