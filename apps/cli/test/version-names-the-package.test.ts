// `junction --version` said `@junction/cli/0.1.0` in the checkout and `junction/0.1.0` packed;
// the top-level help took as long as a command (issue 31). Both are now answered from
// package.json and the manifests without loading oclif, and name the tool `junction`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { runCli, tempConfigHome } from './run-cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  oclif: { topics: Record<string, unknown> };
};

describe('junction --version', () => {
  it('names the tool junction, its version, the platform and node', () => {
    const r = runCli(['--version'], { XDG_CONFIG_HOME: tempConfigHome() });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `junction/${pjson.version} ${process.platform}-${process.arch} node-${process.version}\n`,
    );
  });
});

describe('the top-level help', () => {
  it.each([[[]], [['--help']], [['-h']], [['help']]])(
    'junction %j lists every topic and top-level command, exit 0',
    (args) => {
      const r = runCli(args, { XDG_CONFIG_HOME: tempConfigHome() });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`VERSION\n  junction/${pjson.version} `);
      const topics = Object.keys(pjson.oclif.topics).filter((t) => !t.includes(':'));
      for (const topic of topics.filter((t) => t !== 'logs')) {
        expect(r.stdout).toMatch(new RegExp(`^  ${topic} +\\S`, 'm'));
      }
      for (const command of ['autocomplete', 'doctor', 'init', 'logs', 'serve', 'sync', 'worker']) {
        expect(r.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
      }
      // Hidden commands (autocomplete's own helpers) are not listed.
      expect(r.stdout).not.toContain('autocomplete:script');
    },
  );

  it('a command still gets its own help from oclif', () => {
    const r = runCli(['env', 'list', '--help'], { XDG_CONFIG_HOME: tempConfigHome() });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('$ junction env list');
  });
});
