import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  canonicalToolName,
  parsePrompt,
  parsePromptFile,
  renderPrompt,
  writePromptFile,
} from '../src/index.js';
import { PromptError, WorkspaceError } from '../src/errors.js';
import { caught, cleanup, tempDir } from './helpers.js';

afterAll(cleanup);

const file = '/ws/environments/dev/agents/aws-cost.prompt';

const referenceFile = `---
model: openai/gpt-4o
metadata:
  name: AWS Cost Analyst
  description: Explains the AWS bill
  tags: [finops, aws]
  version: "1.0"
max_steps: 8
tools:
  - __get_cost_and_usage
  - __get_cost_forecast
agents: [report-writer]
input:
  schema:
    account: string, the AWS account id
    months?: integer
output:
  format: json
  schema:
    summary: string
schedule:
  cron: "0 9 * * 1"
  variables:
    months: 3
coding:
  enabled: true
  backend: opencode
  workspace_path: /work/aws
app: finops
app_type: analyst
harness: { retries: 2 }
notify: [ops@example.com]
---
{{role "system"}}
You are {{agentName}} in {{environment}}.
{{#if region}}Focus on region {{region}}.{{/if}}

{{role "user"}}
{{userInput}}
`;

describe('parsePrompt', () => {
  it('reads every front matter key of reference prompt files', async () => {
    const agent = await parsePrompt(referenceFile, file);
    expect(agent).toMatchObject({
      name: 'AWS Cost Analyst',
      description: 'Explains the AWS bill',
      model: 'openai/gpt-4o',
      maxSteps: 8,
      tools: ['__get_cost_and_usage', '__get_cost_forecast'],
      agents: ['report-writer'],
      tags: ['finops', 'aws'],
      version: '1.0',
      inputSchema: { account: 'string, the AWS account id', 'months?': 'integer' },
      output: { format: 'json', schema: { summary: 'string' } },
      schedule: { cron: '0 9 * * 1', enabled: true, variables: { months: '3' } },
      coding: { enabled: true, backend: 'opencode', workspacePath: '/work/aws' },
      path: file,
    });
    expect(agent.inputJsonSchema).toEqual({
      type: 'object',
      properties: {
        account: { type: 'string', description: 'the AWS account id' },
        months: { type: ['integer', 'null'] },
      },
      required: ['account'],
      additionalProperties: false,
    });
    expect(agent.output?.jsonSchema).toMatchObject({
      type: 'object',
      properties: { summary: { type: 'string' } },
    });
    expect(agent.template.startsWith('{{role "system"}}')).toBe(true);
    expect(agent.template).toContain('{{userInput}}');
  });

  it('keeps unknown front matter keys in frontMatter', async () => {
    const agent = await parsePrompt(referenceFile, file);
    expect(agent.frontMatter).toMatchObject({
      app: 'finops',
      app_type: 'analyst',
      harness: { retries: 2 },
      notify: ['ops@example.com'],
    });
    expect(agent.frontMatter.max_steps).toBe(8);
  });

  it('keeps __-prefixed tool names as written', async () => {
    const agent = await parsePrompt('---\ntools: [__list_buckets, read_file]\n---\nhi', file);
    expect(agent.tools).toEqual(['__list_buckets', 'read_file']);
    expect(agent.tools.map(canonicalToolName)).toEqual(['list_buckets', 'read_file']);
  });

  it('names the agent after the file when metadata.name is absent, and accepts a file without front matter', async () => {
    const agent = await parsePrompt(
      '{{role "system"}}\nHello\n{{role "user"}}\n{{userInput}}',
      file,
    );
    expect(agent.name).toBe('aws-cost');
    expect(agent.description).toBe('');
    expect(agent.model).toBeUndefined();
    expect(agent.maxSteps).toBe(25);
    expect(agent.tools).toEqual([]);
    expect(agent.frontMatter).toEqual({});
  });

  it.each([
    ['', 25],
    ['max_steps: 0\n', 25],
    ['max_steps: -3\n', 25],
    ['max_steps: 12\n', 12],
    ['metadata:\n  max_steps: 7\n', 7],
    ['max_steps: 9\nmetadata:\n  max_steps: 7\n', 9],
    ['max_steps:\n', 25],
  ])('max_steps from %j is %d', async (frontMatter, expected) => {
    const agent = await parsePrompt(`---\nmodel: m\n${frontMatter}---\nbody`, file);
    expect(agent.maxSteps).toBe(expected);
  });

  it('defaults schedule.enabled to true and coding.enabled to false', async () => {
    const agent = await parsePrompt(
      '---\nschedule:\n  cron: "*/5 * * * *"\ncoding:\n  backend: opencode-nats\n---\nbody',
      file,
    );
    expect(agent.schedule).toEqual({ cron: '*/5 * * * *', enabled: true, variables: {} });
    expect(agent.coding).toEqual({
      enabled: false,
      backend: 'opencode-nats',
      workspacePath: undefined,
    });
  });
});

describe('malformed prompt files', () => {
  it.each([
    ['bad YAML', '---\nmodel: [gpt\nmax_steps: 3\n---\nbody', 'the front matter is not valid YAML'],
    [
      'unclosed front matter',
      '---\nmodel: gpt\n\nbody without the closing line',
      'never closed by a "---" line',
    ],
    [
      'front matter that is a list',
      '---\n- a\n- b\n---\nbody',
      'the front matter must be a map of keys',
    ],
    [
      'wrong-typed max_steps',
      '---\nmax_steps: ten\n---\nbody',
      'max_steps: expected a whole number, got "ten"',
    ],
    [
      'fractional max_steps',
      '---\nmetadata:\n  max_steps: 2.5\n---\nbody',
      'metadata.max_steps: expected a whole number, got 2.5',
    ],
    [
      'tools that are not a list',
      '---\ntools: read_file\n---\nbody',
      'tools: expected a list of names, got "read_file"',
    ],
    [
      'a bad coding backend',
      '---\ncoding:\n  backend: cursor\n---\nbody',
      'coding.backend: expected one of opencode-nats, opencode, got "cursor"',
    ],
    [
      'a schedule without cron',
      '---\nschedule:\n  enabled: true\n---\nbody',
      'schedule.cron: expected a cron expression, got nothing',
    ],
    [
      'an unclosed block',
      '---\nmodel: m\n---\n{{role "system"}}\n{{#if region}}\nRegion {{region}}\n',
      'a block opened with {{#...}} is never closed',
    ],
    ['an unknown helper', '---\nmodel: m\n---\n{{shout userInput}}', 'unknown helper shout'],
    [
      'an invalid input schema',
      '---\ninput:\n  schema:\n    a: wat\n---\nbody',
      "input.schema: Picoschema: unsupported scalar type 'wat'",
    ],
  ])('%s is PROMPT_INVALID with the path and the reason', async (_, source, reason) => {
    const error = await caught(() => parsePrompt(source, file));
    expect(error).toBeInstanceOf(PromptError);
    expect(error.code).toBe('PROMPT_INVALID');
    expect(error.message).toContain(`Invalid prompt file ${file}`);
    expect(error.message).toContain(reason);
    expect(error.details?.path).toBe(file);
  });

  it.each([
    ['banana every tuesday', undefined, 'schedule.cron', 'has 3 fields'],
    ['61 * * * *', undefined, 'schedule.cron', 'is not a cron expression'],
    ['0 0 31 2 *', undefined, 'schedule.cron', 'never fires'],
    ['0 0 9 * * * 2030', undefined, 'schedule.cron', 'has 7 fields'],
    ['0 9 * * *', 'Mars/Olympus', 'schedule.timezone', 'is not a time zone'],
  ])('refuses schedule cron %j (time zone %j), naming %s', async (cron, timezone, field, why) => {
    const source = `---\nschedule:\n  cron: "${cron}"\n${timezone ? `  timezone: ${timezone}\n` : ''}---\nbody`;
    const error = await caught(() => parsePrompt(source, file));
    expect(error).toBeInstanceOf(PromptError);
    expect(error.message).toContain(file);
    expect(error.message).toContain(field);
    expect(error.message).toContain(why);
  });

  it('reads a schedule with seconds, a time zone, a task and its policies', async () => {
    const agent = await parsePrompt(
      '---\nschedule:\n  cron: "*/2 * * * * *"\n  timezone: Europe/Paris\n  task: Check the queue\n  catch_up: skip\n  overlap: queue\n---\nbody',
      file,
    );
    expect(agent.schedule).toEqual({
      cron: '*/2 * * * * *',
      enabled: true,
      variables: {},
      timezone: 'Europe/Paris',
      task: 'Check the queue',
      catchUp: 'skip',
      overlap: 'queue',
    });
  });

  it('gives the file line of a template error', async () => {
    const error = await caught(() =>
      parsePrompt('---\nmodel: m\n---\n\n{{role "system"}}\nok\n{{#each items}}\n{{this}}\n', file),
    );
    expect(error.message).toContain('(line 8)');
  });

  it('gives the file line of a YAML error', async () => {
    const error = await caught(() =>
      parsePrompt('---\nmodel: m\nmetadata:\n  name: [x\n---\nbody', file),
    );
    expect(error.message).toMatch(/\(line [45]\)/);
  });

  it('reports a missing file as AGENT_NOT_FOUND', async () => {
    const dir = await tempDir();
    const error = await caught(() => parsePromptFile(path.join(dir, 'ghost.prompt')));
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.code).toBe('AGENT_NOT_FOUND');
  });
});

describe('renderPrompt', () => {
  it('renders the {{#if}} block only when the variable is set', async () => {
    const agent = await parsePrompt(referenceFile, file);
    const withRegion = await renderPrompt(agent, {
      userInput: 'Why did costs rise?',
      variables: { region: 'eu-west-1' },
      environment: 'prod',
    });
    expect(withRegion.system).toBe('You are AWS Cost Analyst in prod.\nFocus on region eu-west-1.');
    expect(withRegion.messages).toEqual([{ role: 'user', content: 'Why did costs rise?' }]);

    const without = await renderPrompt(agent, {
      userInput: 'Why did costs rise?',
      environment: 'prod',
    });
    expect(without.system).toBe('You are AWS Cost Analyst in prod.');
    expect(without.system).not.toContain('region');
  });

  it('does not HTML-escape user input or variables', async () => {
    const agent = await parsePrompt(
      '{{role "system"}}\nNote: {{note}}\n{{role "user"}}\n{{userInput}}',
      file,
    );
    const input = `Compare "A" & 'B' <b>now</b> = \`x\` {{ .NOT_A_VAR }}`;
    const rendered = await renderPrompt(agent, {
      userInput: input,
      variables: { note: 'R&D <team>' },
    });
    expect(rendered.system).toBe('Note: R&D <team>');
    expect(rendered.messages).toEqual([{ role: 'user', content: input }]);
  });

  it('keeps userInput, agentName and environment from being replaced by run variables', async () => {
    const agent = await parsePrompt(
      '{{role "system"}}\n{{agentName}}/{{environment}}\n{{role "user"}}\n{{userInput}}',
      file,
    );
    const rendered = await renderPrompt(agent, {
      userInput: 'task',
      agentName: 'given-name',
      environment: 'dev',
      variables: { userInput: 'hijack', agentName: 'x', environment: 'y' },
    });
    expect(rendered.system).toBe('given-name/dev');
    expect(rendered.messages).toEqual([{ role: 'user', content: 'task' }]);
  });

  it('maps role "model" to assistant and keeps turns in order', async () => {
    const agent = await parsePrompt(
      '{{role "system"}}\nsys\n{{role "user"}}\nexample question\n{{role "model"}}\nexample answer\n{{role "user"}}\n{{userInput}}',
      file,
    );
    const rendered = await renderPrompt(agent, { userInput: 'real question' });
    expect(rendered).toEqual({
      system: 'sys',
      messages: [
        { role: 'user', content: 'example question' },
        { role: 'assistant', content: 'example answer' },
        { role: 'user', content: 'real question' },
      ],
    });
  });

  it('adds the task as a user turn when the body never uses {{userInput}}', async () => {
    const agent = await parsePrompt(
      '---\nmodel: m\n---\n{{role "system"}}\nOnly a system prompt.',
      file,
    );
    expect(await renderPrompt(agent, { userInput: 'do it' })).toEqual({
      system: 'Only a system prompt.',
      messages: [{ role: 'user', content: 'do it' }],
    });
  });

  it('uses input.default values from the front matter', async () => {
    const agent = await parsePrompt(
      '---\ninput:\n  default:\n    tone: friendly\n---\n{{role "system"}}\nBe {{tone}}.\n{{role "user"}}\n{{userInput}}',
      file,
    );
    expect((await renderPrompt(agent, { userInput: 'hi' })).system).toBe('Be friendly.');
    expect(
      (await renderPrompt(agent, { userInput: 'hi', variables: { tone: 'terse' } })).system,
    ).toBe('Be terse.');
  });
});

describe('writePromptFile', () => {
  it('writes a file that parses back to the input', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'agents', 'triage.prompt');
    const input = {
      name: 'triage',
      description: 'Sorts incoming issues: bugs, "features" & questions',
      model: 'anthropic/claude-sonnet',
      maxSteps: 12,
      tools: ['__search_issues', 'label_issue'],
      agents: ['summarizer'],
      prompt: 'You sort issues.\nBe brief: one label each.',
    };
    const written = await writePromptFile(target, input);
    const parsed = await parsePromptFile(target);
    expect(parsed).toEqual(written);
    expect({
      name: parsed.name,
      description: parsed.description,
      model: parsed.model,
      maxSteps: parsed.maxSteps,
      tools: parsed.tools,
      agents: parsed.agents,
    }).toEqual({
      name: input.name,
      description: input.description,
      model: input.model,
      maxSteps: input.maxSteps,
      tools: input.tools,
      agents: input.agents,
    });
    const rendered = await renderPrompt(parsed, { userInput: 'Issue #1: crash on start' });
    expect(rendered).toEqual({
      system: input.prompt,
      messages: [{ role: 'user', content: 'Issue #1: crash on start' }],
    });
    const text = await readFile(target, 'utf8');
    expect(text).toMatch(/^---\n/);
    expect(text).toContain('{{role "system"}}');
    expect(text).toContain('{{role "user"}}\n{{userInput}}\n');
  });

  it('writes only the keys given, with a default system prompt', async () => {
    const dir = await tempDir();
    const agent = await writePromptFile(path.join(dir, 'min.prompt'), {
      name: 'min',
      description: 'Minimal agent',
    });
    expect(agent).toMatchObject({
      name: 'min',
      description: 'Minimal agent',
      model: undefined,
      maxSteps: 25,
      tools: [],
      agents: [],
    });
    expect(agent.frontMatter).toEqual({ metadata: { name: 'min', description: 'Minimal agent' } });
    expect((await renderPrompt(agent, { userInput: 'x' })).system).toBe(
      'You are min. Minimal agent',
    );
  });

  it('uses a prompt that already has role markers as the whole body', async () => {
    const dir = await tempDir();
    const body = '{{role "system"}}\nCustom.\n{{role "user"}}\nTask: {{userInput}}';
    const agent = await writePromptFile(path.join(dir, 'custom.prompt'), {
      name: 'custom',
      description: 'd',
      prompt: body,
    });
    expect(agent.template).toBe(body);
  });

  it('refuses to overwrite an existing file', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'taken.prompt');
    await writeFile(target, 'original');
    const error = await caught(() => writePromptFile(target, { name: 'taken', description: 'd' }));
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.code).toBe('AGENT_FILE_EXISTS');
    expect(await readFile(target, 'utf8')).toBe('original');
    expect(await readdir(dir)).toEqual(['taken.prompt']);
  });

  it('refuses an invalid prompt or input and writes nothing', async () => {
    const dir = await tempDir();
    const broken = await caught(() =>
      writePromptFile(path.join(dir, 'b.prompt'), {
        name: 'b',
        description: 'd',
        prompt: '{{#if x}} never closed',
      }),
    );
    expect(broken.code).toBe('PROMPT_INVALID');
    const badInput = await caught(() =>
      writePromptFile(path.join(dir, 'c.prompt'), { name: ' ', description: 'd', maxSteps: 0 }),
    );
    expect(badInput.code).toBe('PROMPT_INVALID');
    expect(badInput.message).toContain('maxSteps: expected a positive whole number, got 0');
    expect(await readdir(dir)).toEqual([]);
  });
});

// Regression (issue 13, item 14): an empty .prompt file was registered as an agent.
describe('an empty prompt file', () => {
  it('is refused as PROMPT_INVALID naming the file, however much white space it holds', async () => {
    for (const text of ['', '\n\n', '\uFEFF  \t\n']) {
      const err = await parsePrompt(text, '/ws/environments/dev/agents/blank.prompt').catch(
        (e: unknown) => e as { code: string; message: string },
      );
      expect(err).toMatchObject({ code: 'PROMPT_INVALID' });
      expect((err as { message: string }).message).toContain('blank.prompt');
      expect((err as { message: string }).message).toContain('the file is empty');
    }
  });
});

// Regression (issue 13, item 14): `metadata.name: ../../evil` synced and registered an agent
// named `../../evil`. Display names of reference files ("AWS Cost Analyst") stay accepted.
describe('an agent name from a prompt file', () => {
  const at = '/ws/environments/dev/agents/evil.prompt';
  it.each([
    ['metadata.name', '---\nmetadata:\n  name: ../../evil\n---\nbody', 'path separator'],
    ['metadata.name', '---\nmetadata:\n  name: "a\\\\b"\n---\nbody', 'path separator'],
    ['name', '---\nname: ".."\n---\nbody', 'only dots'],
    ['metadata.name', '---\nmetadata:\n  name: "bad\\nname"\n---\nbody', 'control character'],
    ['metadata.name', '---\nmetadata:\n  name: " padded"\n---\nbody', 'space at either end'],
    ['metadata.name', `---\nmetadata:\n  name: ${'x'.repeat(129)}\n---\nbody`, 'the most is 128'],
  ])('%s refused: %j', async (key, source, reason) => {
    const err = await caught(() => parsePrompt(source, at));
    expect(err.code).toBe('PROMPT_INVALID');
    expect(err.message).toContain(at);
    expect(err.message).toContain(`${key}: `);
    expect(err.message).toContain(reason);
  });

  it('keeps display names with spaces and punctuation, and file stems', async () => {
    const named = await parsePrompt(
      '---\nmetadata:\n  name: AWS Cost Analyst (v2.1)\n---\nbody',
      at,
    );
    expect(named.name).toBe('AWS Cost Analyst (v2.1)');
    expect((await parsePrompt('---\nmodel: m\n---\nbody', at)).name).toBe('evil');
  });
});
