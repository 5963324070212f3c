// A mistyped command gets a suggestion (@oclif/plugin-not-found) at a terminal, and shell
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

  it('in a pipe: says it is not a command and where the list is, exit 127, no prompt', async () => {
    const result = await runCliAsync(['agent', 'lst'], { XDG_CONFIG_HOME: tempConfigHome() });
    expect(result.status).toBe(127);
    expect(result.stderr).toContain('agent lst is not a junction command');
    expect(result.stderr).toContain('junction help agent');
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
