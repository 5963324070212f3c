// Agent prompt files: YAML front matter + a dotprompt (Handlebars) body. dotprompt's own parse()
// logs and swallows front-matter YAML errors, so the front matter is parsed and validated here
// first; the body is then compiled by dotprompt once, so a broken template fails at parse time
// with the file and line instead of at the first run.
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ParsedPrompt } from 'dotprompt';
import { stringify } from 'yaml';
import { readYaml } from './yaml-text.js';
import { loadDotprompt } from './dotprompt-loader.js';
import { z } from 'zod';
import { DEFAULT_MAX_STEPS, agentDefinitionSchema } from './agent-definition.js';
import { agentNameProblem, hasControlCharacter, visibleText } from './names.js';
import type { AgentDefinition } from './agent-definition.js';
import { CODING_BACKENDS, UNKNOWN_OUTCOME_ACTIONS } from './config-schema.js';
import { PromptError, WorkspaceError, expecting } from './errors.js';

// The same split dotprompt uses, so both agree on where the body starts.
import { cronProblem, SCHEDULE_CATCH_UPS, SCHEDULE_OVERLAPS } from './cron.js';

const FRONT_MATTER = /^---\s*(?:\r\n|\r|\n)([\s\S]*?)(?:\r\n|\r|\n)---\s*(?:\r\n|\r|\n)([\s\S]*)$/;

const optionalText = z.string({ error: expecting('a string') }).optional();
const wholeNumber = z
  .number({ error: expecting('a whole number') })
  .int({ error: expecting('a whole number') })
  .optional();
const names = z
  .array(z.string({ error: expecting('a string') }), { error: expecting('a list of names') })
  .optional();
const scalarText = z
  .union([z.string(), z.number(), z.boolean()], { error: expecting('a string') })
  .transform(String);

const frontMatterSchema = z.looseObject(
  {
    model: optionalText,
    name: optionalText,
    description: optionalText,
    max_steps: wholeNumber,
    tools: names,
    agents: names,
    on_unknown_outcome: z
      .enum(UNKNOWN_OUTCOME_ACTIONS, {
        error: expecting(`one of ${UNKNOWN_OUTCOME_ACTIONS.join(', ')}`),
      })
      .optional(),
    metadata: z
      .looseObject(
        {
          name: optionalText,
          description: optionalText,
          tags: names,
          version: scalarText.optional(),
          max_steps: wholeNumber,
        },
        { error: expecting('a map') },
      )
      .optional(),
    input: z
      .looseObject(
        {
          schema: z.unknown().optional(),
          default: z.record(z.string(), z.unknown(), { error: expecting('a map') }).optional(),
        },
        { error: expecting('a map') },
      )
      .optional(),
    output: z
      .looseObject(
        { format: optionalText, schema: z.unknown().optional() },
        { error: expecting('a map') },
      )
      .optional(),
    schedule: z
      .looseObject(
        {
          cron: z
            .string({ error: expecting('a cron expression') })
            .min(1, { error: expecting('a cron expression') }),
          enabled: z.boolean({ error: expecting('true or false') }).optional(),
          variables: z
            .record(z.string(), scalarText, { error: expecting('a map of names to values') })
            .optional(),
          task: optionalText,
          timezone: optionalText,
          catch_up: z
            .enum(SCHEDULE_CATCH_UPS, { error: expecting(SCHEDULE_CATCH_UPS.join(' or ')) })
            .optional(),
          overlap: z
            .enum(SCHEDULE_OVERLAPS, { error: expecting(SCHEDULE_OVERLAPS.join(' or ')) })
            .optional(),
        },
        { error: expecting('a map with a cron key') },
      )
      .superRefine((schedule, ctx) => {
        // A cron that cannot fire (or an unknown time zone) is this file's error, at sync.
        const problem = cronProblem(schedule.cron, schedule.timezone);
        if (problem)
          ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
      })
      .optional(),
    coding: z
      .looseObject(
        {
          enabled: z.boolean({ error: expecting('true or false') }).optional(),
          backend: z
            .enum(CODING_BACKENDS, { error: expecting(`one of ${CODING_BACKENDS.join(', ')}`) })
            .optional(),
          workspace_path: optionalText,
        },
        { error: expecting('a map') },
      )
      .optional(),
  },
  { error: expecting('a map of keys') },
);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dropNulls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null) continue;
    out[key] = isPlainObject(child) ? dropNulls(child) : child;
  }
  return out;
}

function invalid(file: string, reason: string, cause?: unknown, line?: number): PromptError {
  const at = line === undefined ? '' : ` (line ${line})`;
  return new PromptError(
    'PROMPT_INVALID',
    `Invalid prompt file ${file}${at}: ${reason}. Fix the file and try again.`,
    { path: file, reason, line: line ?? null },
    { cause: cause },
  );
}

function keyOf(issuePath: readonly PropertyKey[]): string {
  return issuePath
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function lineCount(text: string): number {
  let lines = 0;
  for (const char of text) if (char === '\n') lines++;
  return lines;
}

function stem(file: string): string {
  return path.basename(file).replace(/\.prompt$/, '');
}

async function toJsonSchema(
  schema: unknown,
  key: string,
  file: string,
): Promise<Record<string, unknown> | undefined> {
  if (schema === undefined) return undefined;
  const { picoschema } = await loadDotprompt();
  try {
    const converted: unknown = await picoschema(schema);
    return isPlainObject(converted) ? converted : undefined;
  } catch (error) {
    throw invalid(file, `${key}: ${(error as Error).message}`, error);
  }
}

async function checkBody(template: string, file: string, bodyLine: number): Promise<void> {
  const { Dotprompt } = await loadDotprompt();
  try {
    const render = await new Dotprompt().compile({ template } as ParsedPrompt);
    await render({ input: {} });
  } catch (error) {
    const message = (error as Error).message;
    const lines = message.split('\n');
    const parse = /^Parse error on line (\d+):/.exec(lines[0] ?? '');
    if (parse !== null) {
      const expectation = lines[lines.length - 1] ?? '';
      const hint = /got 'EOF'/.test(expectation)
        ? 'a block opened with {{#...}} is never closed'
        : 'the template cannot be parsed';
      throw invalid(file, `${hint} (${expectation})`, error, bodyLine + Number(parse[1]) - 1);
    }
    throw invalid(file, `the template is not valid: ${message}`, error);
  }
}

/** Parses the text of an agent prompt file; `file` names it in errors and gives the default name. */
export async function parsePrompt(source: string, file: string): Promise<AgentDefinition> {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  if (text.trim() === '') {
    throw invalid(
      file,
      'the file is empty; an agent needs at least a prompt (see docs/environments.md)',
    );
  }
  let frontMatter: Record<string, unknown> = {};
  let bodyLine = 1;
  const match = FRONT_MATTER.exec(text);
  if (match === null && /^---\s*(?:\r\n|\r|\n|$)/.test(text)) {
    throw invalid(
      file,
      'the front matter opened with "---" on the first line is never closed by a "---" line',
      undefined,
      1,
    );
  }
  if (match !== null) {
    const yamlText = match[1] as string;
    const body = match[2] as string;
    const read = readYaml(yamlText);
    if (!read.ok) {
      const { reason, line, cause } = read.problem;
      throw invalid(
        file,
        `the front matter is not valid YAML: ${reason}`,
        cause,
        line === undefined ? undefined : line + 1,
      );
    }
    const value = read.value;
    if (value !== null && value !== undefined && !isPlainObject(value)) {
      throw invalid(file, 'the front matter must be a map of keys (key: value lines)');
    }
    frontMatter = isPlainObject(value) ? value : {};
    const leading = body.length - body.trimStart().length;
    bodyLine = lineCount(text.slice(0, text.length - body.length + leading)) + 1;
  }

  const checked = frontMatterSchema.safeParse(dropNulls(frontMatter));
  if (!checked.success) {
    const reasons = checked.error.issues.map(
      (issue) => `${keyOf(issue.path) || 'front matter'}: ${issue.message}`,
    );
    throw invalid(file, reasons.join('; '), checked.error);
  }
  const fm = checked.data;

  const { Dotprompt } = await loadDotprompt();
  const template = new Dotprompt().parse(text).template;
  await checkBody(template, file, bodyLine);

  const requestedSteps = fm.max_steps ?? fm.metadata?.max_steps;
  const definition: AgentDefinition = {
    name: fm.metadata?.name ?? fm.name ?? stem(file),
    description: fm.metadata?.description ?? fm.description ?? '',
    model: fm.model,
    maxSteps:
      requestedSteps !== undefined && requestedSteps > 0 ? requestedSteps : DEFAULT_MAX_STEPS,
    tools: fm.tools ?? [],
    agents: fm.agents ?? [],
    tags: fm.metadata?.tags ?? [],
    version: fm.metadata?.version,
    inputSchema: fm.input?.schema,
    inputJsonSchema: await toJsonSchema(fm.input?.schema, 'input.schema', file),
    output:
      fm.output === undefined
        ? undefined
        : {
            format: fm.output.format,
            schema: fm.output.schema,
            jsonSchema: await toJsonSchema(fm.output.schema, 'output.schema', file),
          },
    schedule:
      fm.schedule === undefined
        ? undefined
        : {
            cron: fm.schedule.cron,
            enabled: fm.schedule.enabled ?? true,
            variables: fm.schedule.variables ?? {},
            ...(fm.schedule.task !== undefined ? { task: fm.schedule.task } : {}),
            ...(fm.schedule.timezone !== undefined ? { timezone: fm.schedule.timezone } : {}),
            ...(fm.schedule.catch_up !== undefined ? { catchUp: fm.schedule.catch_up } : {}),
            ...(fm.schedule.overlap !== undefined ? { overlap: fm.schedule.overlap } : {}),
          },
    coding:
      fm.coding === undefined
        ? undefined
        : {
            enabled: fm.coding.enabled ?? false,
            backend: fm.coding.backend,
            workspacePath: fm.coding.workspace_path,
          },
    frontMatter,
    template,
    path: file,
  };
  const nameProblem = agentNameProblem(definition.name);
  if (nameProblem !== undefined) {
    const key =
      fm.metadata?.name !== undefined
        ? 'metadata.name'
        : fm.name !== undefined
          ? 'name'
          : 'file name';
    throw invalid(
      file,
      `${key}: ${JSON.stringify(visibleText(definition.name))} ${nameProblem}; name the agent with letters, digits, spaces, "-" or "_"`,
    );
  }
  if (definition.model !== undefined && hasControlCharacter(definition.model)) {
    throw invalid(
      file,
      `model: ${JSON.stringify(definition.model)} contains a control character (a line break, tab, escape…); write it as provider/name on one line`,
    );
  }
  return agentDefinitionSchema.parse(definition);
}

/** Reads and parses `agents/<name>.prompt`. */
export async function parsePromptFile(file: string): Promise<AgentDefinition> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new WorkspaceError(
        'AGENT_NOT_FOUND',
        `Prompt file ${file} does not exist. Check the agent name and environment.`,
        { path: file },
        { cause: error },
      );
    }
    throw new WorkspaceError(
      'FILE_UNREADABLE',
      `Cannot read ${file}: ${(error as Error).message}.`,
      { path: file },
      { cause: error },
    );
  }
  return parsePrompt(source, file);
}

/** What writePromptFile needs to create an agent file. */
export const newPromptFileSchema = z.object({
  name: z
    .string({ error: expecting('a name') })
    .trim()
    .min(1, { error: expecting('a name') }),
  description: z.string({ error: expecting('a description') }),
  model: z
    .string({ error: expecting('a model identifier') })
    .min(1, { error: expecting('a model identifier') })
    .optional(),
  maxSteps: z
    .number({ error: expecting('a positive whole number') })
    .int({ error: expecting('a positive whole number') })
    .positive({ error: expecting('a positive whole number') })
    .optional(),
  tools: z.array(z.string({ error: expecting('a tool name') })).optional(),
  agents: z.array(z.string({ error: expecting('an agent name') })).optional(),
  /** System prompt text; when it already contains {{role ...}} markers it is the whole body. */
  prompt: z.string({ error: expecting('a string') }).optional(),
});

/** What writePromptFile needs to create an agent file. */
export type NewPromptFile = z.input<typeof newPromptFileSchema>;

/** The text of a new prompt file: YAML front matter, a system turn, and a user turn with {{userInput}}. */
export function promptFileText(input: NewPromptFile): string {
  const parsed = newPromptFileSchema.safeParse(input);
  if (!parsed.success) {
    const reasons = parsed.error.issues
      .map((issue) => `${keyOf(issue.path)}: ${issue.message}`)
      .join('; ');
    throw new PromptError('PROMPT_INVALID', `Cannot write a prompt file: ${reasons}.`, {
      reason: reasons,
    });
  }
  const agent = parsed.data;
  const frontMatter: Record<string, unknown> = {};
  if (agent.model !== undefined) frontMatter.model = agent.model;
  frontMatter.metadata = { name: agent.name, description: agent.description };
  if (agent.maxSteps !== undefined) frontMatter.max_steps = agent.maxSteps;
  if (agent.tools !== undefined) frontMatter.tools = agent.tools;
  if (agent.agents !== undefined) frontMatter.agents = agent.agents;
  const body = bodyOf(agent.prompt ?? `You are ${agent.name}. ${agent.description}`);
  return `---\n${stringify(frontMatter, { lineWidth: 0 })}---\n${body}\n`;
}

/** Changes to an existing prompt file; absent keys keep what the file says. */
export interface PromptFileChanges {
  description?: string;
  model?: string;
  maxSteps?: number;
  tools?: string[];
  agents?: string[];
  /** New system prompt text (or a whole body when it contains {{role ...}} markers). */
  prompt?: string;
}

function bodyOf(prompt: string): string {
  const text = prompt.trim();
  return text.includes('{{role')
    ? text
    : `{{role "system"}}\n${text}\n\n{{role "user"}}\n{{userInput}}`;
}

/**
 * The text of `definition`'s file with `changes` applied. Every other front matter key
 * (schedule, coding, unknown keys) is kept as it was; the body is kept unless a prompt is given.
 */
export function updatedPromptFileText(
  definition: AgentDefinition,
  changes: PromptFileChanges,
): string {
  const checked = newPromptFileSchema.partial().safeParse(changes);
  if (!checked.success) {
    const reasons = checked.error.issues
      .map((issue) => `${keyOf(issue.path)}: ${issue.message}`)
      .join('; ');
    throw new PromptError('PROMPT_INVALID', `Cannot update ${definition.path}: ${reasons}.`, {
      path: definition.path,
      reason: reasons,
    });
  }
  const frontMatter: Record<string, unknown> = { ...definition.frontMatter };
  if (changes.model !== undefined) frontMatter.model = changes.model;
  if (changes.description !== undefined) {
    const metadata =
      typeof frontMatter.metadata === 'object' && frontMatter.metadata !== null
        ? (frontMatter.metadata as Record<string, unknown>)
        : {};
    frontMatter.metadata = { ...metadata, name: definition.name, description: changes.description };
    delete frontMatter.description;
  }
  if (changes.maxSteps !== undefined) {
    frontMatter.max_steps = changes.maxSteps;
    if (typeof frontMatter.metadata === 'object' && frontMatter.metadata !== null)
      delete (frontMatter.metadata as Record<string, unknown>).max_steps;
  }
  if (changes.tools !== undefined) frontMatter.tools = changes.tools;
  if (changes.agents !== undefined) frontMatter.agents = changes.agents;
  const body = changes.prompt !== undefined ? bodyOf(changes.prompt) : definition.template.trim();
  return `---\n${stringify(frontMatter, { lineWidth: 0 })}---\n${body}\n`;
}

/** Writes a new prompt file (creating its folder); refuses to overwrite and validates before writing. */
export async function writePromptFile(
  file: string,
  input: NewPromptFile,
): Promise<AgentDefinition> {
  const text = promptFileText(input);
  const definition = await parsePrompt(text, file);
  await mkdir(path.dirname(file), { recursive: true });
  // Write a temp file and hard-link it into place: atomic, and link() refuses an existing target.
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  await writeFile(temp, text, { encoding: 'utf8', flag: 'wx' });
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new WorkspaceError(
        'AGENT_FILE_EXISTS',
        `Prompt file ${file} already exists. Choose another name, or edit the existing file.`,
        { path: file },
        { cause: error },
      );
    }
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
  return definition;
}
