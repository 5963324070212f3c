// Live progress at a terminal (issue 16): a spinner says what a run or a sync waits for, status
// words are in colour; NO_COLOR and --no-color take the colour away; a pipe gets plain lines.
// The terminal is a real pseudo-terminal (util-linux `script`).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { runAtTerminal, type TerminalRun } from './terminal.js';

const KEY = 'sk-live-progress-key-123456';
const GREEN_COMPLETED = '\u001b[32mcompleted\u001b[39m';
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /;
let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
}, 180_000);
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

/** `junction args` under a pseudo-terminal; everything it wrote, as the terminal got it. */
function atTerminal(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<TerminalRun> {
  return runAtTerminal(args, { env: { ...env, ...extra } });
}

describe('junction agent run', () => {
  it('at a terminal: a spinner while the model thinks, the status in colour', async () => {
    fake.script([{ delayMs: 800, text: 'Two and two make four.' }]);
    const { status, output } = await atTerminal(['agent', 'run', 'assistant', 'add 2 and 2']);
    expect(status).toBe(0);
    expect(output).toMatch(SPINNER);
    expect(output).toContain('waiting for the model (turn 1)');
    expect(output).toContain('Two and two make four.');
    expect(output).toContain(GREEN_COMPLETED);
  });

  it('streams the answer as it arrives, once, and keeps escape codes off the screen', async () => {
    fake.script([
      { text: 'Streaming word by word \u001b[31mred\u001b[0m done.', chunkDelayMs: 150 },
    ]);
    const { status, output, arrivals } = await atTerminal([
      'agent',
      'run',
      'assistant',
      'stream it',
    ]);
    expect(status).toBe(0);
    // Its first words were on the screen well before its last.
    const first = arrivals.find((a) => a.text.includes('Streaming'))!.at;
    const last = arrivals.find((a) => a.text.includes('done.'))!.at;
    expect(last - first).toBeGreaterThanOrEqual(300);
    // The fake sends the text in several chunks, 150 ms apart: it arrived in pieces.
    expect(fake.requests.at(-1)?.body).toMatchObject({ stream: true });
    expect(output).toContain('Streaming word by word [31mred[0m done.');
    expect(output).not.toContain('\u001b[31mred');
    expect(output.split('Streaming word by word').length - 1).toBe(1);
    expect(output).toMatch(/turn 1 {2}openai\/gpt-test/);
  });

  it('names the tool it calls while the call runs', async () => {
    fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      { delayMs: 500, text: 'It is 4.' },
    ]);
    const { output } = await atTerminal(['agent', 'run', 'assistant', 'add 2 and 2']);
    expect(output).toContain('calling add');
    expect(output).toContain('tool calc/add  ok');
  });

  it('says when it retries and why: "retrying in 2 s (429 from the provider)"', async () => {
    fake.script([
      { error: { status: 429, message: 'Rate limit reached' } },
      { text: 'after the retry' },
    ]);
    const { status, output } = await atTerminal(['agent', 'run', 'assistant', 'hi']);
    expect(status).toBe(0);
    expect(output).toContain('retrying in 2 s (429 from the provider)');
    expect(output).toContain('waiting to retry (attempt 2)');
    expect(output).toContain('after the retry');
  });

  it('a retry-after header sets the wait it announces', async () => {
    fake.script([{ error: { status: 503, message: 'busy' }, retryAfterMs: 300 }, { text: 'ok' }]);
    const result = await runCliAsync(['agent', 'run', 'assistant', 'hi'], env);
    expect(result.status).toBe(0);
    // In a pipe too, as a plain line.
    expect(result.stdout).toContain('retrying in 0.3 s (503 from the provider)');
  });

  it('NO_COLOR=1 and --no-color: no colour, the spinner stays', async () => {
    fake.script([{ delayMs: 500, text: 'fine' }]);
    const noColor = await atTerminal(['agent', 'run', 'assistant', 'hi'], { NO_COLOR: '1' });
    expect(noColor.output).not.toContain(GREEN_COMPLETED);
    expect(noColor.output).toMatch(/run \d+ completed in/);
    expect(noColor.output).toMatch(SPINNER);
    fake.script([{ text: 'fine' }]);
    const flag = await atTerminal(['agent', 'run', 'assistant', 'hi', '--no-color']);
    expect(flag.output).not.toContain(GREEN_COMPLETED);
  });

  it('in a pipe: plain lines, no spinner and no escape codes', async () => {
    fake.script([{ delayMs: 500, text: 'plain answer' }]);
    const result = await runCliAsync(['agent', 'run', 'assistant', 'hi'], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('plain answer');
    expect(result.stdout + result.stderr).not.toContain('\u001b[');
    expect(result.stdout + result.stderr).not.toMatch(SPINNER);
  });
});

describe('junction sync', () => {
  it('at a terminal: each server named as it starts, then its status in colour', async () => {
    const { status, output } = await atTerminal(['sync', 'default']);
    expect(status).toBe(0);
    expect(output).toMatch(/starting calc \(node\)/);
    expect(output).toContain('\u001b[32mconnected\u001b[39m');
  });

  it('in a pipe: the same report as plain lines', async () => {
    const result = await runCliAsync(['sync', 'default'], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/server {2}filesystem\/calc {2}connected {2}\d+ tools/);
    expect(result.stdout + result.stderr).not.toContain('\u001b[');
  });
});
