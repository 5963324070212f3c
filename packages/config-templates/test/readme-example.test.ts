// The README example is run as written, so it cannot rot.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as lib from '../src/index.js';
import { cleanup, tempDir } from './helpers.js';

afterAll(cleanup);

const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../README.md');

describe('README example', () => {
  it('runs and prints what its last comment says', async () => {
    const text = await readFile(readme, 'utf8');
    const block = /```js\n([\s\S]*?)```/.exec(text)?.[1];
    expect(block).toBeDefined();
    const source = (block as string).replace(
      /^import \{([^}]*)\} from '@junction\/config-templates';$/m,
      'const {$1} = lib;',
    );
    expect(source).not.toContain('import ');
    const printed: string[] = [];
    const fakeConsole = {
      log: (...args: unknown[]): void => void printed.push(args.map(String).join(' ')),
    };
    const fakeProcess = { env: { XDG_CONFIG_HOME: await tempDir() } };
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<void>;
    await new AsyncFunction('lib', 'process', 'console', source)(lib, fakeProcess, fakeConsole);
    const expected = /\/\/ → (.*)$/m.exec(block as string)?.[1];
    expect(printed).toEqual([expected]);
  });
});
