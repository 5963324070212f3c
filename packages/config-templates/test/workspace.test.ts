import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Workspace, parsePromptFile } from '../src/index.js';
import { defaultConfigYaml } from '../src/default-config.js';
import { WorkspaceError } from '../src/errors.js';
import { caught, cleanup, tempPaths } from './helpers.js';

afterAll(cleanup);

async function freshWorkspace(): Promise<Workspace> {
  return new Workspace(await tempPaths());
}

describe('Workspace.init', () => {
  it('creates the config folder, config.yaml, the default environment and an example agent', async () => {
    const ws = await freshWorkspace();
    const result = await ws.init();
    const env = path.join(ws.paths.environmentsDir, 'default');
    expect(result.existing).toEqual([]);
    expect(result.created).toEqual([
      ws.paths.configHome,
      ws.paths.configFile,
      ws.paths.environmentsDir,
      env,
      path.join(env, 'agents'),
      path.join(env, 'workflows'),
      path.join(ws.paths.configHome, 'files'),
      path.join(env, 'variables.yml'),
      path.join(env, 'filesystem.json'),
      path.join(env, 'agents', 'assistant.prompt'),
    ]);
    expect(await readFile(ws.paths.configFile, 'utf8')).toBe(defaultConfigYaml(ws.paths));
    expect(await ws.listEnvironments()).toEqual(['default']);
    expect(await ws.readVariables('default')).toEqual({
      FILESYSTEM_ROOT: path.join(ws.paths.configHome, 'files'),
    });
    const template = await readFile(path.join(env, 'filesystem.json'), 'utf8');
    expect(JSON.parse(template).mcpServers.filesystem.args).toContain('{{ .FILESYSTEM_ROOT }}');
    const agent = await parsePromptFile(path.join(env, 'agents', 'assistant.prompt'));
    expect(agent.name).toBe('assistant');
    expect(agent.tools).toEqual(['list_directory', 'read_text_file']);
    expect(agent.maxSteps).toBe(10);
  });

  it('creates nothing and overwrites nothing the second time', async () => {
    const ws = await freshWorkspace();
    const first = await ws.init();
    await writeFile(ws.paths.configFile, 'log_level: debug\n');
    await ws.writeVariables('default', { TOKEN: 'mine' });
    const agentFile = ws.agentFile('default', 'assistant');
    await writeFile(agentFile, '---\nmetadata:\n  name: assistant\n---\nedited\n');

    const second = await ws.init();
    expect(second.created).toEqual([]);
    expect(second.existing).toEqual(first.created);
    expect(await readFile(ws.paths.configFile, 'utf8')).toBe('log_level: debug\n');
    expect(await ws.readVariables('default')).toEqual({ TOKEN: 'mine' });
    expect(await readFile(agentFile, 'utf8')).toContain('edited');
  });

  it('fills in only what is missing', async () => {
    const ws = await freshWorkspace();
    await mkdir(ws.paths.configHome, { recursive: true });
    await writeFile(ws.paths.configFile, 'log_level: warn\n');
    const result = await ws.init();
    expect(result.existing).toEqual([ws.paths.configHome, ws.paths.configFile]);
    expect(result.created).toContain(ws.variablesFile('default'));
    expect(await readFile(ws.paths.configFile, 'utf8')).toBe('log_level: warn\n');
  });
});

describe('Workspace environments', () => {
  it('creates an environment with agents/, workflows/ and an empty variables.yml, and lists them sorted', async () => {
    const ws = await freshWorkspace();
    const dir = await ws.createEnvironment('prod');
    await ws.createEnvironment('dev_2');
    await ws.createEnvironment('Staging-EU');
    expect(dir).toBe(path.join(ws.paths.environmentsDir, 'prod'));
    expect((await readdir(dir)).sort()).toEqual(['agents', 'variables.yml', 'workflows']);
    expect(await ws.readVariables('prod')).toEqual({});
    expect(await ws.listEnvironments()).toEqual(['Staging-EU', 'dev_2', 'prod']);
  });

  it('lists nothing before init, and ignores stray files in environments/', async () => {
    const ws = await freshWorkspace();
    expect(await ws.listEnvironments()).toEqual([]);
    await ws.createEnvironment('a');
    await writeFile(path.join(ws.paths.environmentsDir, 'notes.txt'), 'x');
    expect(await ws.listEnvironments()).toEqual(['a']);
  });

  it('refuses an existing environment with ENVIRONMENT_EXISTS', async () => {
    const ws = await freshWorkspace();
    await ws.createEnvironment('prod');
    await ws.writeVariables('prod', { KEEP: 'yes' });
    const error = await caught(() => ws.createEnvironment('prod'));
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.code).toBe('ENVIRONMENT_EXISTS');
    expect(error.message).toContain('"prod" already exists');
    expect(await ws.readVariables('prod')).toEqual({ KEEP: 'yes' });
  });

  it.each([
    '',
    '..',
    '.',
    '../escape',
    'a/b',
    'a\\b',
    'has space',
    'dot.ted',
    'x'.repeat(65),
    'ümlaut',
  ])('refuses the invalid name %j with INVALID_NAME and creates nothing', async (name) => {
    const ws = await freshWorkspace();
    const error = await caught(() => ws.createEnvironment(name));
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.code).toBe('INVALID_NAME');
    expect(error.message).toContain('letters, digits, "-" or "_"');
    await expect(stat(ws.paths.configHome)).rejects.toThrow();
  });

  it('reports an unknown environment with ENVIRONMENT_NOT_FOUND and the known ones', async () => {
    const ws = await freshWorkspace();
    await ws.init();
    const error = await caught(() => ws.readVariables('prod'));
    expect(error.code).toBe('ENVIRONMENT_NOT_FOUND');
    expect(error.message).toContain('Environment "prod" does not exist (known: default)');
    for (const call of [
      () => ws.listTemplateFiles('prod'),
      () => ws.listPromptFiles('prod'),
      () => ws.writeVariables('prod', {}),
    ]) {
      expect((await caught(call)).code).toBe('ENVIRONMENT_NOT_FOUND');
    }
  });
});

describe('Workspace variables', () => {
  it('round-trips values YAML would otherwise change or break', async () => {
    const ws = await freshWorkspace();
    await ws.createEnvironment('dev');
    const variables = {
      ZIP: '00731',
      VERSION: '1.10',
      FLAG: 'true',
      NOTHING: 'null',
      EMPTY: '',
      QUOTED: 'say "hi" and \'bye\'',
      YAMLISH: 'key: value # not a comment',
      MULTILINE: 'line 1\nline 2\n',
      BACKSLASH: 'C:\\Users\\ann',
      UNICODE: 'café 日本 🚀',
      JSON: '{"a": [1, 2]}',
    };
    await ws.writeVariables('dev', variables);
    expect(await ws.readVariables('dev')).toEqual(variables);
    const files = await readdir(path.join(ws.paths.environmentsDir, 'dev'));
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('reads hand-written scalars as the text written', async () => {
    const ws = await freshWorkspace();
    await ws.createEnvironment('dev');
    await writeFile(
      ws.variablesFile('dev'),
      'PORT: 8080\nVERSION: 1.10\nDEBUG: yes\nBLANK:\nNAME: "x"\n',
    );
    expect(await ws.readVariables('dev')).toEqual({
      PORT: '8080',
      VERSION: '1.10',
      DEBUG: 'yes',
      BLANK: '',
      NAME: 'x',
    });
  });

  it('rejects a list or map as a value, and bad YAML, with VARIABLES_INVALID and the file', async () => {
    const ws = await freshWorkspace();
    await ws.createEnvironment('dev');
    await writeFile(ws.variablesFile('dev'), 'HOSTS:\n  - a\n  - b\n');
    const nested = await caught(() => ws.readVariables('dev'));
    expect(nested.code).toBe('VARIABLES_INVALID');
    expect(nested.message).toContain(
      `${ws.variablesFile('dev')}: variable HOSTS must be a single value`,
    );
    await writeFile(ws.variablesFile('dev'), 'A: [1\nB: 2\n');
    const broken = await caught(() => ws.readVariables('dev'));
    expect(broken.code).toBe('VARIABLES_INVALID');
    expect(broken.message).toContain(`Invalid YAML in ${ws.variablesFile('dev')} at line`);
  });

  it('reads a missing variables.yml as no variables', async () => {
    const ws = await freshWorkspace();
    await mkdir(path.join(ws.paths.environmentsDir, 'bare'), { recursive: true });
    expect(await ws.readVariables('bare')).toEqual({});
  });
});

describe('Workspace files', () => {
  it('lists the *.json templates and agents/*.prompt files, sorted', async () => {
    const ws = await freshWorkspace();
    const dir = await ws.createEnvironment('dev');
    for (const name of ['zeta.json', 'alpha.json', 'notes.md', 'variables.yml', '.hidden.json'])
      await writeFile(path.join(dir, name), '{}');
    for (const name of ['b.prompt', 'a.prompt', 'readme.txt'])
      await writeFile(path.join(dir, 'agents', name), 'x');
    await writeFile(path.join(dir, 'workflows', 'deploy.workflow.yaml'), 'id: deploy\n');
    expect(await ws.listTemplateFiles('dev')).toEqual([
      path.join(dir, 'alpha.json'),
      path.join(dir, 'zeta.json'),
    ]);
    expect(await ws.listPromptFiles('dev')).toEqual([
      path.join(dir, 'agents', 'a.prompt'),
      path.join(dir, 'agents', 'b.prompt'),
    ]);
    expect(await ws.listWorkflowFiles('dev')).toEqual([
      path.join(dir, 'workflows', 'deploy.workflow.yaml'),
    ]);
  });

  it('copies an agent file between environments and refuses to overwrite unless asked', async () => {
    const ws = await freshWorkspace();
    await ws.init();
    await ws.createEnvironment('prod');
    const target = await ws.copyAgentFile('assistant', 'default', 'prod');
    expect(target).toBe(ws.agentFile('prod', 'assistant'));
    const original = await readFile(ws.agentFile('default', 'assistant'), 'utf8');
    expect(await readFile(target, 'utf8')).toBe(original);

    await writeFile(target, 'prod edit');
    const error = await caught(() => ws.copyAgentFile('assistant', 'default', 'prod'));
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.code).toBe('AGENT_FILE_EXISTS');
    expect(error.message).toContain('Pass overwrite to replace it');
    expect(await readFile(target, 'utf8')).toBe('prod edit');

    await ws.copyAgentFile('assistant', 'default', 'prod', { overwrite: true });
    expect(await readFile(target, 'utf8')).toBe(original);
    expect((await readdir(path.dirname(target))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('reports a missing agent, an unknown environment and a bad agent name', async () => {
    const ws = await freshWorkspace();
    await ws.init();
    await ws.createEnvironment('prod');
    expect((await caught(() => ws.copyAgentFile('ghost', 'default', 'prod'))).code).toBe(
      'AGENT_NOT_FOUND',
    );
    expect((await caught(() => ws.copyAgentFile('assistant', 'default', 'nope'))).code).toBe(
      'ENVIRONMENT_NOT_FOUND',
    );
    expect((await caught(() => ws.copyAgentFile('../../etc/passwd', 'default', 'prod'))).code).toBe(
      'INVALID_NAME',
    );
  });
});
