import { describe, expect, it } from '@jest/globals';
import { renderTemplate } from '../src/index.js';
import { TemplateError } from '../src/errors.js';
import { isSystemEnvVariable, templateVariables } from '../src/template-renderer.js';
import { caught } from './helpers.js';

const file = '/ws/environments/dev/github.json';

const tricky = {
  QUOTES: 'say "hi" and \'bye\'',
  BACKSLASH: 'C:\\Users\\ann\\ and a trailing \\',
  NEWLINES: 'line 1\nline 2\r\nline 3',
  TABS: 'a\tb\t',
  ACCENTS: 'café crème',
  CJK: '日本語のテキスト',
  EMOJI: '🚀 launch 👩‍💻',
  INJECTION: '", "evil": "1',
  CONTROL: '\u0000\u001f\u2028',
};

describe('renderTemplate', () => {
  it('JSON-escapes values inside strings so JSON.parse gives back the original value', () => {
    const names = Object.keys(tricky);
    const template = `{"mcpServers": {"s": {"command": "run", "env": {${names.map((n) => `"${n}": "{{ .${n} }}"`).join(', ')}}}}}`;
    const rendered = renderTemplate(template, { variables: tricky, file });
    const parsed = JSON.parse(rendered) as { mcpServers: { s: { env: Record<string, string> } } };
    expect(parsed.mcpServers.s.env).toEqual(tricky);
    expect(Object.keys(parsed.mcpServers.s.env)).not.toContain('evil');
  });

  it('escapes values that share a string with other text, and in keys', () => {
    const rendered = renderTemplate('{"{{ .KEY }}": "Bearer {{.QUOTES}} / {{ .EMOJI }}!"}', {
      variables: { ...tricky, KEY: 'x-"k"' },
      file,
    });
    expect(JSON.parse(rendered)).toEqual({ 'x-"k"': `Bearer ${tricky.QUOTES} / ${tricky.EMOJI}!` });
  });

  it('inserts values raw outside strings', () => {
    const rendered = renderTemplate(
      '{"port": {{ .PORT }}, "debug": {{.DEBUG}}, "args": [{{ .ARGS }}]}',
      {
        variables: { PORT: '8080', DEBUG: 'true', ARGS: '"a", "b"' },
        file,
      },
    );
    expect(JSON.parse(rendered)).toEqual({ port: 8080, debug: true, args: ['a', 'b'] });
  });

  it('keeps track of escaped quotes already in the template', () => {
    const rendered = renderTemplate('{"a": "x \\" {{ .V }}", "b": {{ .N }}}', {
      variables: { V: 'q"q', N: '1' },
      file,
    });
    expect(JSON.parse(rendered)).toEqual({ a: 'x " q"q', b: 1 });
  });

  it('leaves other braces alone', () => {
    const text = '{"a": "{{ not a placeholder }}", "b": "{single}"}';
    expect(renderTemplate(text, { variables: {}, file })).toBe(text);
  });

  it('lets the process environment override variables.yml', () => {
    const rendered = renderTemplate('{"t": "{{ .TOKEN }}", "o": "{{ .ONLY_ENV }}"}', {
      variables: { TOKEN: 'from-file' },
      processEnv: { TOKEN: 'from-env', ONLY_ENV: 'env-only' },
      file,
    });
    expect(JSON.parse(rendered)).toEqual({ t: 'from-env', o: 'env-only' });
  });

  it('never takes system variables from the process environment', () => {
    const processEnv = {
      HOME: '/home/shell',
      PATH: '/usr/bin',
      XDG_DATA_HOME: '/x',
      LC_ALL: 'C',
      USER: 'shell',
    };
    const rendered = renderTemplate(
      '{"h": "{{ .HOME }}", "p": "{{ .PATH }}", "x": "{{ .XDG_DATA_HOME }}"}',
      {
        variables: { HOME: '/srv/app', PATH: '/opt/bin', XDG_DATA_HOME: '/data' },
        processEnv,
        file,
      },
    );
    expect(JSON.parse(rendered)).toEqual({ h: '/srv/app', p: '/opt/bin', x: '/data' });
    const error = (() => {
      try {
        renderTemplate('{"u": "{{ .USER }}"}', { variables: {}, processEnv, file });
      } catch (e) {
        return e as TemplateError;
      }
      return undefined;
    })();
    expect(error?.code).toBe('TEMPLATE_VARIABLE_MISSING');
  });

  it('lists every missing variable once, in order, with the file', async () => {
    const error = await caught(() =>
      renderTemplate(
        '{"a": "{{ .B_TOKEN }}", "b": "{{ .A_ORG }}", "c": "{{ .B_TOKEN }}", "d": "{{ .SET }}", "e": {{ .PORT }}}',
        {
          variables: { SET: 'x' },
          file,
        },
      ),
    );
    expect(error).toBeInstanceOf(TemplateError);
    expect(error.code).toBe('TEMPLATE_VARIABLE_MISSING');
    expect(error.message).toContain(
      `Template ${file} uses variables that are not set: B_TOKEN, A_ORG, PORT.`,
    );
    expect(error.details).toEqual({ missing: [{ file, variables: ['B_TOKEN', 'A_ORG', 'PORT'] }] });
  });

  it('lists the placeholders a template uses', () => {
    expect(templateVariables('{"a": "{{ .X }}", "b": {{.Y}}, "c": "{{ .X }}"}')).toEqual([
      'X',
      'Y',
    ]);
  });
});

describe('isSystemEnvVariable', () => {
  it.each([
    'PATH',
    'HOME',
    'USER',
    'SHELL',
    'PWD',
    'TMPDIR',
    'LANG',
    'TERM',
    'XDG_CONFIG_HOME',
    'LC_ALL',
    'SSH_AUTH_SOCK',
  ])('%s is a system variable', (name) => {
    expect(isSystemEnvVariable(name)).toBe(true);
  });

  it.each(['GITHUB_TOKEN', 'API_KEY', 'HOMEPAGE_URL', 'PATHFINDER'])('%s is not', (name) => {
    expect(isSystemEnvVariable(name)).toBe(false);
  });
});
