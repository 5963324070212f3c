// Regression (issue 13, item 13): a config.yaml with 10,000 nested `[` exited with
// "RangeError: Maximum call stack size exceeded", an alias bomb with a stack trace. Both are a
// coded error naming the file, in config.yaml, variables.yml and prompt front matter alike.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig, parsePrompt, resolvePaths, Workspace } from '../src/index.js';

const DEEP = `a: ${'['.repeat(10_000)}`;
const BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  ...'bcdef'
    .split('')
    .map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdef'[i]}`).join(', ')}]`),
  `g: [${Array(9).fill('*f').join(', ')}]`,
  '',
].join('\n');

const caught = (fn: () => unknown): { code: string; message: string } => {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a refusal');
};

describe('hostile YAML', () => {
  for (const [what, text, words] of [
    ['deep nesting', DEEP, 'nested too deeply'],
    ['an alias bomb', BOMB, 'alias bomb'],
  ] as const) {
    it(`in config.yaml (${what}) is CONFIG_INVALID naming the file`, () => {
      const home = mkdtempSync(path.join(os.tmpdir(), 'junction-yaml-'));
      const paths = resolvePaths({ XDG_CONFIG_HOME: home });
      mkdirSync(paths.configHome, { recursive: true });
      writeFileSync(paths.configFile, text);
      const err = caught(() => loadConfig({ paths, env: {} }));
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.message).toContain(paths.configFile);
      expect(err.message).toContain(words);
      rmSync(home, { recursive: true, force: true });
    });

    it(`in variables.yml (${what}) is VARIABLES_INVALID naming the file`, async () => {
      const home = mkdtempSync(path.join(os.tmpdir(), 'junction-yaml-'));
      const workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
      await workspace.init();
      writeFileSync(workspace.variablesFile('default'), text);
      const err = await workspace.readVariables('default').catch((e: unknown) => e as Error);
      expect(err).toMatchObject({ code: 'VARIABLES_INVALID' });
      expect((err as Error).message).toContain(words);
      rmSync(home, { recursive: true, force: true });
    });

    it(`in prompt front matter (${what}) is PROMPT_INVALID naming the file`, async () => {
      const err = await parsePrompt(`---\n${text}\n---\nhi`, '/ws/agents/bad.prompt').catch(
        (e: unknown) => e as Error,
      );
      expect(err).toMatchObject({ code: 'PROMPT_INVALID' });
      expect((err as Error).message).toContain('bad.prompt');
      expect((err as Error).message).toContain(words);
    });
  }
});
