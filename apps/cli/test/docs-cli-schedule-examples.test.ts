// The `junction schedule` examples of docs/cli.md run, in the page's order, against a fresh
// workspace, and print what the page shows — but for times ("in 6h", "2s ago") and column
// widths, which depend on when and where the test runs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { exitCodeOf } from './exit-code-of.js';
import { runCliAsync, syncedWorkspace } from './run-cli.js';

const page = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/cli.md'),
  'utf8',
);

/** The words of a shell command line, with its single and double quotes taken off. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Output as the test compares it: times and ages made alike, runs of spaces made one. */
function comparable(text: string): string[] {
  const lines = text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
        .replace(/\b(\d+[smhd] ago|just now)\b/g, '<ago>')
        .replace(/\bin \d+[smhd]\b/g, '<in>')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  // `schedule list` orders its rows by next fire, which depends on the time of day the test
  // runs (a 02:00 fire comes after a 09:00 Paris one between 02:00 and 08:00 UTC): the rows
  // are compared as a set under their header.
  if (lines[0]?.startsWith('KIND TARGET ')) return [lines[0], ...lines.slice(1).sort()];
  return lines;
}

interface Example {
  args: string[];
  output: string;
}

const examples: Example[] = [];
for (const section of page.split(/\n(?=## )/)) {
  if (!section.startsWith('## `junction schedule ')) continue;
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const part of block[1]!.split(/^\$ /m).slice(1)) {
      const [command, ...output] = part.split('\n');
      const [bin, ...args] = shellWords(command!);
      if (bin !== 'junction') throw new Error(`docs/cli.md: an example runs ${bin}, not junction`);
      examples.push({ args, output: output.join('\n') });
    }
  }
}

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: 'sk-docs-schedule-key-1234567' },
  });
  const workflows = path.join(
    String(env.XDG_CONFIG_HOME),
    'junction/environments/default/workflows',
  );
  mkdirSync(workflows, { recursive: true });
  writeFileSync(
    path.join(workflows, 'nightly-report.workflow.yaml'),
    `id: nightly-report
start: wrap
inputSchema:
  type: object
  properties: {namespace: {type: string}}
  required: [namespace]
states:
  - {id: wrap, type: transform, expression: '{"ns": namespace}', end: true}
`,
  );
  const sync = await runCliAsync(['sync', 'default'], env);
  if (sync.status !== 0) throw new Error(`junction sync failed: ${sync.stdout} ${sync.stderr}`);
}, 180_000);

afterAll(async () => {
  await fake.close();
});

describe('docs/cli.md: junction schedule', () => {
  it('shows set, list, run-now, show and remove', () => {
    const commands = new Set(examples.map((e) => e.args[1]));
    expect([...commands].sort()).toEqual(['list', 'remove', 'run-now', 'set', 'show']);
  });

  it('prints what the page shows for each example, in order', async () => {
    for (const example of examples) {
      const r = await runCliAsync(example.args, env);
      const error = /^Error \[([A-Z_]+)\]/.exec(example.output)?.[1];
      expect({ command: example.args.join(' '), status: r.status }).toEqual({
        command: example.args.join(' '),
        status: error ? exitCodeOf(error) : 0,
      });
      expect(comparable(r.stdout + r.stderr)).toEqual(comparable(example.output));
    }
  }, 120_000);
});
