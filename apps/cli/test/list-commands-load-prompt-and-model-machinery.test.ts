// Regression: `junction env list`, `agent list` and `runs list` took ~24× `node -e 0` to answer:
// each start imported dotprompt and Handlebars (config-templates' entry), @libsql/client's remote
// clients (the store's entry) and ran drizzle's migrator, which reads every SQL migration file.
// A list now loads only what it uses; this pins what it must not load, counted by a module
// loader hook in the child process (a count does not depend on how busy the machine is). The
// commands run from the bundle (dist/bundle): each file the hook sees is mapped to the sources
// it holds through the bundle's metafile.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli, tempConfigHome } from './run-cli.js';

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  const result = await next(url, context);
  appendFileSync(process.env.JUNCTION_TEST_MODULE_LOG, url + '\\n');
  return result;
}
`;
const REGISTER = `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
`;

const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The sources in the files loaded, as paths; a file outside the bundle stands for itself. */
function sourcesOf(urls: string[]): string[] {
  const meta = JSON.parse(readFileSync(path.join(cliRoot, 'dist/bundle/meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return urls.flatMap((url) => {
    if (!url.startsWith('file:')) return [url];
    const file = path.relative(cliRoot, fileURLToPath(url));
    const output = meta.outputs[file.split(path.sep).join('/')];
    if (output === undefined) return [url];
    return Object.keys(output.inputs).map((input) => path.resolve(cliRoot, input));
  });
}

/** Packages a list command has no use for, with why each is heavy. */
const UNWANTED: Array<[RegExp, string]> = [
  [/\/node_modules\/dotprompt\//, 'dotprompt (prompt parsing and rendering)'],
  [/\/node_modules\/handlebars\//, 'Handlebars (under dotprompt)'],
  [/\/node_modules\/ai\//, 'the AI SDK'],
  [/\/node_modules\/@ai-sdk\//, 'an AI SDK provider'],
  [/\/node_modules\/@libsql\/hrana-client\//, "@libsql/client's remote protocol"],
  [/\/node_modules\/ws\//, 'ws (remote store over WebSocket)'],
  [/\/drizzle-orm\/libsql\/migrator\.js$/, "drizzle's migrator (the store is up to date)"],
  [/\/drizzle-orm\/migrator\.js$/, "drizzle's migration file reader"],
];

describe('a list command loads only what it uses', () => {
  let home: string;
  let log: string;
  let nodeOptions: string;

  beforeAll(() => {
    home = tempConfigHome();
    writeFileSync(path.join(home, 'hooks.mjs'), HOOKS);
    writeFileSync(path.join(home, 'register.mjs'), REGISTER);
    log = path.join(home, 'modules.log');
    nodeOptions = `--import=${pathToFileURL(path.join(home, 'register.mjs')).href}`;
    const init = runCli(['init'], { XDG_CONFIG_HOME: home });
    expect({ status: init.status, stderr: init.stderr }).toEqual({ status: 0, stderr: '' });
    // The first open of a new store migrates it; the lists below open it up to date.
    const first = runCli(['env', 'list'], { XDG_CONFIG_HOME: home });
    expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: '' });
  }, 120_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it.each([
    ['env', 'list'],
    ['agent', 'list'],
    ['runs', 'list'],
  ])(
    'junction %s %s loads no prompt, model or migration machinery',
    (...args: string[]) => {
      rmSync(log, { force: true });
      const r = runCli(args, {
        XDG_CONFIG_HOME: home,
        NODE_OPTIONS: nodeOptions,
        JUNCTION_TEST_MODULE_LOG: log,
      });
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      const loaded = readFileSync(log, 'utf8').trim().split('\n');
      // The hook saw the command's own module: it did record this process's imports.
      expect(loaded.some((m) => m.endsWith(`/dist/bundle/commands/${args.join('/')}.js`))).toBe(
        true,
      );
      const modules = sourcesOf(loaded);
      // …and the metafile named what those files hold.
      expect(modules.some((m) => m.endsWith(`/dist/commands/${args.join('/')}.js`))).toBe(true);
      const unwanted = UNWANTED.flatMap(([pattern, what]) => {
        const hit = modules.find((m) => pattern.test(m));
        return hit === undefined ? [] : [`${what}: ${hit}`];
      });
      expect(unwanted).toEqual([]);
    },
    60_000,
  );
});
