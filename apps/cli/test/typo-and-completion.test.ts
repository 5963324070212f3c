// A mistyped command gets a suggestion (@oclif/plugin-not-found) at a terminal, and shell
// completion is there (@oclif/plugin-autocomplete) (issue 16). The terminal is a real
// pseudo-terminal (util-linux `script`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

/** Runs `junction args` under a pseudo-terminal, answering `answer` once `prompt` shows. */
function atTerminal(
  args: string[],
  prompt: string,
  answer: string,
): Promise<{ status: number | null; output: string }> {
  const command = [process.execPath, bin, ...args].map((w) => `'${w}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: tempConfigHome() },
    });
    let output = '';
    let answered = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      if (!answered && output.includes(prompt)) {
        answered = true;
        child.stdin.write(answer);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      // eslint-disable-next-line no-control-regex
      resolve({ status, output: output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '') });
    });
  });
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
