// Outside --json, oclif's refusals printed oclif's own ` ›   Error: …` with the usage dumped
// after it, not the documented `Error [CODE]: message` (docs/cli.md), and a missing task told
// of `--var` taking several values though no --var was given (issue 31).
import { describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const env = { XDG_CONFIG_HOME: tempConfigHome() };

describe('errors outside --json', () => {
  it('a missing argument: Error [INVALID_USAGE] naming it and where the usage is, exit 2', async () => {
    const r = await runCliAsync(['agent', 'run', 'assistant'], env);
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'Error [INVALID_USAGE]: Missing 1 required arg: TASK (the task, as the user message). ' +
        '`junction agent run --help` shows the usage.\n',
    });
  });

  it('the note on several-value flags only when one of them was given', async () => {
    const r = await runCliAsync(['agent', 'run', 'assistant', '--var', 'city=Paris'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--var takes several values: put the arguments before it');
  });

  it('an unknown flag: Error [INVALID_USAGE], exit 2, no oclif marks', async () => {
    const r = await runCliAsync(['env', 'list', '--bogus'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'Error [INVALID_USAGE]: Nonexistent flag: --bogus. `junction env list --help` shows the usage.\n',
    );
  });

  it('a flag value of the wrong type: Error [INVALID_USAGE], exit 2', async () => {
    const r = await runCliAsync(['runs', 'list', '--limit', 'many'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Error \[INVALID_USAGE\]: .*Expected an integer but received: many/);
    expect(r.stderr).not.toContain('›');
  });

  it('a coded error keeps its code and exit code', async () => {
    const r = await runCliAsync(['runs', 'inspect', '999999'], env);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/^Error \[RUN_NOT_FOUND\]: /);
  });
});
