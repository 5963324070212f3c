// docs/cli.md said `junction init` makes an empty `variables.yml`; it sets FILESYSTEM_ROOT to the
// workspace's `files/` folder for the example filesystem template (issue 31). This runs init and
// checks what it makes against what the page says, so the two cannot drift apart again.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/cli.md');
const home = tempConfigHome();

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The text of docs/cli.md's `junction init` section. */
function initSection(): string {
  const text = readFileSync(docs, 'utf8');
  const start = text.indexOf('## `junction init');
  return text.slice(start, text.indexOf('\n## ', start + 1));
}

describe('junction init, as docs/cli.md says', () => {
  it('makes files/, a variables.yml pointing FILESYSTEM_ROOT there, filesystem.json and the agent', async () => {
    const r = await runCliAsync(['init'], { XDG_CONFIG_HOME: home });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const workspace = path.join(home, 'junction');
    const env = path.join(workspace, 'environments', 'default');
    const files = path.join(workspace, 'files');
    expect(existsSync(files)).toBe(true);
    const variables = readFileSync(path.join(env, 'variables.yml'), 'utf8');
    expect(variables).toContain(`FILESYSTEM_ROOT: ${JSON.stringify(files)}`);
    const template = readFileSync(path.join(env, 'filesystem.json'), 'utf8');
    expect(template).toContain('@modelcontextprotocol/server-filesystem');
    expect(template).toContain('{{ .FILESYSTEM_ROOT }}');
    const agent = readFileSync(path.join(env, 'agents', 'assistant.prompt'), 'utf8');
    expect(agent).toMatch(/list_directory/);
    for (const dir of ['agents', 'workflows']) expect(existsSync(path.join(env, dir))).toBe(true);

    const section = initSection();
    for (const named of [
      '`files/`',
      '`FILESYSTEM_ROOT`',
      '`filesystem.json`',
      '`@modelcontextprotocol/server-filesystem`',
      '`agents/assistant.prompt`',
      '`list_directory`',
      '`read_text_file`',
    ]) {
      expect(section).toContain(named);
    }
    expect(section).not.toMatch(/default` environment \(.*an empty `variables\.yml`/);
  });
});
