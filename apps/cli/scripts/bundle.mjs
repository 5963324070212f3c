// Bundles the built commands (dist/commands, dist/hooks) and oclif's entry (dist/main.js, which
// bin/run.js imports) with what they import into dist/bundle: one file per command plus shared
// chunks, so that a command's start reads a few files instead of resolving and compiling ~500
// modules one by one (most of a start on Node 20, which keeps no compile cache). oclif itself is
// bundled too (its ~100 CommonJS files cost more to load than Node takes to start); it finds the
// commands by path (package.json "oclif"), here.
//
// Left outside the bundle and loaded from node_modules: the autocomplete plugin (a plugin of its
// own, with its own @oclif/core), libSQL's client with its native binding (chosen per platform
// at run time), and TypeScript, which oclif asks for only when it runs commands from sources. Code of a workspace package that finds its own files with `import.meta.url`
// (migrations, .proto files, the dashboard's assets) gets its module's real URL, resolved at
// run time through the package, so those files are found where the package is installed.
// The metafile (dist/bundle/meta.json) says which sources each output holds.
// Usage: node scripts/bundle.mjs
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const outdir = path.join(dist, 'bundle');
const requireFromCli = createRequire(path.join(root, 'package.json'));

/** A built module of a workspace package: packages/<folder>/dist/… */
const WORKSPACE_MODULE = /^(.*[\\/]packages[\\/][^\\/]+)[\\/]dist[\\/].*\.js$/;

/** The workspace package `file` belongs to: its name and its entry as the CLI resolves it. */
function packageOf(file) {
  const match = WORKSPACE_MODULE.exec(file);
  if (match === null) return undefined;
  const name = JSON.parse(readFileSync(path.join(match[1], 'package.json'), 'utf8')).name;
  return { name, main: requireFromCli.resolve(name) };
}

/** Gives each workspace module that reads `import.meta.url` its own URL, found at run time. */
const ownModuleUrl = {
  name: 'own-module-url',
  setup(esbuild) {
    esbuild.onLoad({ filter: WORKSPACE_MODULE }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const owner = packageOf(args.path);
      if (owner === undefined) return undefined;
      const relative = path.relative(path.dirname(owner.main), args.path).split(path.sep).join('/');
      const url = `__junctionModuleUrl(${JSON.stringify(owner.name)}, ${JSON.stringify(relative)})`;
      return {
        contents: text.replaceAll('import.meta.url', url),
        loader: 'js',
        resolveDir: path.dirname(args.path),
      };
    });
  },
};

/**
 * A package written in CommonJS that is imported lazily (`await import('dotprompt')`) gets its
 * named exports, as Node gives them: a bundle split in chunks would otherwise hand the importer
 * only `default`. The names are read from the package itself, here, at build time.
 */
const lazyCommonJs = {
  name: 'lazy-commonjs',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData?.lazyCommonJs) return undefined;
      const found = await esbuild.resolve(args.path, {
        kind: 'import-statement',
        resolveDir: args.resolveDir,
        pluginData: { lazyCommonJs: true },
      });
      if (found.errors.length > 0 || found.external || !isCommonJs(found.path)) return undefined;
      return {
        path: args.path,
        namespace: 'lazy-commonjs',
        pluginData: { resolveDir: args.resolveDir },
      };
    });
    esbuild.onLoad({ filter: /.*/, namespace: 'lazy-commonjs' }, (args) => {
      const { resolveDir } = args.pluginData;
      const exported = createRequire(path.join(resolveDir, 'index.js'))(args.path);
      const names = Object.keys(exported).filter(
        (name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name),
      );
      const module = JSON.stringify(args.path);
      return {
        contents: `const m = require(${module}); export default m; export const { ${names.join(', ')} } = m;`,
        loader: 'js',
        resolveDir,
      };
    });
  },
};

/** Whether Node loads the file as CommonJS (by its extension, else its package's `type`). */
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (file.endsWith('.mjs') || !file.endsWith('.js')) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).type !== 'module';
    } catch {
      // no package.json here: look further up
    }
  }
  return true;
}

// Every output starts with a `require` (for the CommonJS packages inside the bundle) and the
// resolver the plugin above calls: the URL of `relative`, beside the entry of package `name`.
const banner = [
  "import { createRequire as __junctionCreateRequire } from 'node:module';",
  "import { pathToFileURL as __junctionFileUrl } from 'node:url';",
  'const require = __junctionCreateRequire(import.meta.url);',
  'const __junctionModuleUrl = (name, relative) => new URL(relative, __junctionFileUrl(require.resolve(name))).href;',
].join(' ');

const entryPoints = [
  path.join(dist, 'main.js'),
  ...['commands', 'hooks'].flatMap((folder) =>
    readdirSync(path.join(dist, folder), { recursive: true })
      .filter((file) => file.endsWith('.js'))
      .map((file) => path.join(dist, folder, file)),
  ),
];

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints,
  outdir,
  outbase: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['@oclif/plugin-autocomplete', '@libsql/client', 'libsql', 'typescript', 'ts-node'],
  banner: { js: banner },
  plugins: [ownModuleUrl, lazyCommonJs],
  metafile: true,
  logLevel: 'error',
});
writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
const outputs = Object.keys(result.metafile.outputs).length;
process.stderr.write(`dist/bundle: ${entryPoints.length} entries, ${outputs} files\n`);
