import { createHash } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  Workspace,
  hashTemplate,
  loadEnvironmentTemplates,
  parseMcpTemplate,
} from '../src/index.js';
import { TemplateError } from '../src/errors.js';
import { caught, cleanup, tempPaths } from './helpers.js';

afterAll(cleanup);

const file = '/ws/environments/dev/github.json';

describe('parseMcpTemplate', () => {
  it('parses stdio and http servers, filling defaults, named after the file stem', () => {
    const template = parseMcpTemplate(
      JSON.stringify({
        name: 'ignored',
        description: 'GitHub tools',
        mcpServers: {
          github: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github'],
            env: { GITHUB_TOKEN: 't', RETRIES: 3 },
            cwd: '/tmp',
          },
          bare: { command: 'server' },
          remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
          plain: { url: 'http://127.0.0.1:9000/mcp', type: 'http', disabled: false },
        },
      }),
      file,
    );
    expect(template).toEqual({
      name: 'github',
      description: 'GitHub tools',
      servers: {
        github: {
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_TOKEN: 't', RETRIES: '3' },
          cwd: '/tmp',
        },
        bare: { transport: 'stdio', command: 'server', args: [], env: {} },
        remote: {
          transport: 'http',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer x' },
        },
        plain: { transport: 'http', url: 'http://127.0.0.1:9000/mcp', headers: {} },
      },
    });
  });

  it('accepts "servers" as a synonym of "mcpServers"', () => {
    const template = parseMcpTemplate(
      '{"servers": {"fs": {"command": "mcp-fs", "args": ["/data"]}}}',
      '/x/files.json',
    );
    expect(template.name).toBe('files');
    expect(template.servers).toEqual({
      fs: { transport: 'stdio', command: 'mcp-fs', args: ['/data'], env: {} },
    });
  });

  it('rejects invalid JSON with the file', async () => {
    const error = await caught(() => parseMcpTemplate('{"mcpServers": {', file));
    expect(error).toBeInstanceOf(TemplateError);
    expect(error.code).toBe('TEMPLATE_INVALID');
    expect(error.message).toContain(`Invalid MCP template ${file}: not valid JSON`);
  });

  it.each([
    [
      '{"mcpServers": {"gh": {"args": ["x"]}}}',
      'server "gh" has neither "command" (a process to start) nor "url" (an HTTP server)',
    ],
    [
      '{"mcpServers": {"gh": {"command": "x", "url": "http://a"}}}',
      'server "gh" has both "command" and "url"',
    ],
    [
      '{"mcpServers": {"gh": {"command": "x", "args": "-y"}}}',
      'server "gh" args: expected a list of strings, got "-y"',
    ],
    [
      '{"mcpServers": {"gh": {"url": "ftp://x"}}}',
      'server "gh" url: expected an http:// or https:// URL, got "ftp://x"',
    ],
    [
      '{"mcpServers": {"gh": "npx"}}',
      'server "gh": expected a map with "command" or "url", got "npx"',
    ],
    ['{"mcpServers": [], "x": 1}', '"mcpServers" must be an object of servers, got a list'],
    ['{"tools": {}}', 'has no "mcpServers" (or "servers") object'],
    ['{"mcpServers": {}, "servers": {}}', 'has both "mcpServers" and "servers"'],
    ['[1]', 'expected a JSON object at the top level, got a list'],
  ])('rejects %s', async (text, expected) => {
    const error = await caught(() => parseMcpTemplate(text, file));
    expect(error.code).toBe('TEMPLATE_INVALID');
    expect(error.message).toContain(file);
    expect(error.message).toContain(expected);
  });

  it('reports every broken server at once', async () => {
    const error = await caught(() =>
      parseMcpTemplate('{"mcpServers": {"a": {}, "b": {"command": 5}}}', file),
    );
    expect(error.message).toContain('server "a" has neither');
    expect(error.message).toContain('server "b" command: expected a command (string), got 5');
  });
});

describe('hashTemplate', () => {
  it('is the sha256 hex of the text', () => {
    expect(hashTemplate('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashTemplate('日本')).toBe(createHash('sha256').update('日本').digest('hex'));
  });
});

describe('loadEnvironmentTemplates', () => {
  async function envWith(
    files: Record<string, string>,
    variables: Record<string, string> = {},
  ): Promise<[Workspace, string]> {
    const ws = new Workspace(await tempPaths());
    const dir = await ws.createEnvironment('dev');
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    await ws.writeVariables('dev', variables);
    return [ws, dir];
  }

  const github =
    '{"mcpServers": {"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "{{ .GITHUB_TOKEN }}", "ORG": "{{ .ORG }}"}}}}';
  const slack =
    '{"servers": {"slack": {"url": "{{ .SLACK_URL }}", "headers": {"Authorization": "Bearer {{ .SLACK_TOKEN }}"}}}}';

  it('renders and parses every template of the environment', async () => {
    const [ws, dir] = await envWith(
      { 'github.json': github, 'slack.json': slack },
      {
        GITHUB_TOKEN: 'ghp_"x"',
        ORG: 'acme',
        SLACK_URL: 'https://slack.example.com/mcp',
        SLACK_TOKEN: 'file-token',
      },
    );
    const loaded = await loadEnvironmentTemplates(ws, 'dev', {
      SLACK_TOKEN: 'env-token',
      HOME: '/ignored',
    });
    expect(loaded.map((t) => t.name)).toEqual(['github', 'slack']);
    expect(loaded[0]?.file).toBe(path.join(dir, 'github.json'));
    expect(loaded[0]?.sourceHash).toBe(hashTemplate(github));
    expect(loaded[0]?.template.servers.github).toEqual({
      transport: 'stdio',
      command: 'gh-mcp',
      args: [],
      env: { GITHUB_TOKEN: 'ghp_"x"', ORG: 'acme' },
    });
    expect(loaded[1]?.template.servers.slack).toEqual({
      transport: 'http',
      url: 'https://slack.example.com/mcp',
      headers: { Authorization: 'Bearer env-token' },
    });
  });

  it('changes renderedHash, not sourceHash, when a variable changes', async () => {
    const [ws] = await envWith({ 'github.json': github }, { GITHUB_TOKEN: 'a', ORG: 'acme' });
    const before = (await loadEnvironmentTemplates(ws, 'dev', {}))[0];
    await ws.writeVariables('dev', { GITHUB_TOKEN: 'b', ORG: 'acme' });
    const after = (await loadEnvironmentTemplates(ws, 'dev', {}))[0];
    expect(after?.sourceHash).toBe(before?.sourceHash);
    expect(after?.renderedHash).not.toBe(before?.renderedHash);
  });

  it('throws one error naming every missing variable in every file, and leaves the files alone', async () => {
    const [ws, dir] = await envWith(
      { 'github.json': github, 'slack.json': slack, 'ok.json': '{"mcpServers": {}}' },
      { ORG: 'acme' },
    );
    const error = await caught(() => loadEnvironmentTemplates(ws, 'dev', {}));
    expect(error).toBeInstanceOf(TemplateError);
    expect(error.code).toBe('TEMPLATE_VARIABLE_MISSING');
    expect(error.message).toContain(`${path.join(dir, 'github.json')}: missing GITHUB_TOKEN`);
    expect(error.message).toContain(
      `${path.join(dir, 'slack.json')}: missing SLACK_URL, SLACK_TOKEN`,
    );
    expect(error.message).toContain(`Add the missing variables to ${ws.variablesFile('dev')}`);
    expect(error.details?.missing).toEqual([
      { file: path.join(dir, 'github.json'), variables: ['GITHUB_TOKEN'] },
      { file: path.join(dir, 'slack.json'), variables: ['SLACK_URL', 'SLACK_TOKEN'] },
    ]);
    expect((await readdir(dir)).sort()).toEqual([
      'agents',
      'github.json',
      'ok.json',
      'slack.json',
      'variables.yml',
      'workflows',
    ]);
  });

  it('reports broken templates together with missing variables', async () => {
    const [ws, dir] = await envWith(
      { 'broken.json': '{"mcpServers": ', 'github.json': github },
      { ORG: 'acme' },
    );
    const error = await caught(() => loadEnvironmentTemplates(ws, 'dev', {}));
    expect(error.code).toBe('TEMPLATE_VARIABLE_MISSING');
    expect(error.message).toContain(`${path.join(dir, 'broken.json')}: not valid JSON`);
    expect(error.message).toContain('missing GITHUB_TOKEN');
  });

  it('uses TEMPLATE_INVALID when nothing is missing but a template is broken', async () => {
    const [ws] = await envWith({ 'broken.json': '{"mcpServers": {"x": {}}}' });
    const error = await caught(() => loadEnvironmentTemplates(ws, 'dev', {}));
    expect(error.code).toBe('TEMPLATE_INVALID');
    expect(error.message).toContain('server "x" has neither');
  });
});
