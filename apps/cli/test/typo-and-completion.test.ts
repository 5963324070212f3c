// A mistyped command gets a suggestion (hooks/command-not-found.ts): asked at a terminal, said in
// a pipe (issue 31); `junction help` is there; and shell
// completion is there (@oclif/plugin-autocomplete) (issue 16). The terminal is a real
// pseudo-terminal (util-linux `script`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';
import { runAtTerminal, withoutEscapes } from './terminal.js';

/** Runs `junction args` under a pseudo-terminal, answering `answer` once `prompt` shows. */
async function atTerminal(
  args: string[],
  prompt: string,
  answer: string,
): Promise<{ status: number | null; output: string }> {
  const run = await runAtTerminal(args, {
    env: { XDG_CONFIG_HOME: tempConfigHome() },
    answer: { when: prompt, send: answer },
  });
  return { status: run.status, output: withoutEscapes(run.output) };
}

describe('a mistyped command', () => {
  it('at a terminal: names the command meant and asks; declined, it exits 127', async () => {
    const { status, output } = await atTerminal(['agent', 'lst'], 'Did you mean', 'n\r');
    expect(output).toContain('agent lst is not a junction command');
    expect(output).toContain('Did you mean agent list?');
    expect(status).toBe(127);
  });

  it('accepted, it runs the command meant', async () => {
    const { status, output } = await atTerminal(['env', 'lst'], 'Did you mean', 'y\r');
    expect(output).toContain('Did you mean env list?');
    expect(output).toMatch(/No environments|default/);
    expect(status).toBe(0);
  });

  it('in a pipe: says it is not a command, the one meant and where the list is, exit 127, no prompt', async () => {
    const result = await runCliAsync(['agent', 'lst'], { XDG_CONFIG_HOME: tempConfigHome() });
    expect(result.status).toBe(127);
    expect(result.stderr).toBe(
      'Error [COMMAND_NOT_FOUND]: agent lst is not a junction command. Did you mean agent list? ' +
        '`junction agent --help` lists the commands.\n',
    );
  });

  it('under --json: the same as one JSON error object on stdout, exit 127', async () => {
    const result = await runCliAsync(['env', 'lst', '--json'], {
      XDG_CONFIG_HOME: tempConfigHome(),
    });
    expect(result.status).toBe(127);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'COMMAND_NOT_FOUND',
        message:
          'env lst is not a junction command. Did you mean env list? `junction env --help` lists the commands.',
        details: { command: 'env lst' },
      },
    });
  });
});

describe('junction help', () => {
  it("help <command> is that command's --help; help <topic> the topic's", async () => {
    const env = { XDG_CONFIG_HOME: tempConfigHome() };
    const command = await runCliAsync(['help', 'env', 'list'], env);
    expect(command.status).toBe(0);
    expect(command.stdout).toContain('$ junction env list');
    const topic = await runCliAsync(['help', 'agent'], env);
    expect(topic.status).toBe(0);
    expect(topic.stdout).toContain('$ junction agent COMMAND');
  });
});

describe('shell completion', () => {
  it('builds bash completion that knows the commands, and prints the line to source it', async () => {
    const cache = tempConfigHome();
    const env = { XDG_CONFIG_HOME: tempConfigHome(), XDG_CACHE_HOME: cache };
    const setup = await runCliAsync(['autocomplete', 'bash'], env);
    expect(setup.status).toBe(0);
    const functions = readFileSync(
      path.join(cache, 'junction/autocomplete/functions/bash/junction.bash'),
      'utf8',
    );
    expect(functions).toContain('runs:cancel');
    expect(functions).toContain('workflow:approvals:approve');
    const script = await runCliAsync(['autocomplete', 'script', 'bash'], env);
    expect(script.status).toBe(0);
    expect(script.stdout).toContain('JUNCTION_AC_BASH_SETUP_PATH');
  });
});
