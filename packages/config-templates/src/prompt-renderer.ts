// Renders an agent's prompt body into a system prompt and chat messages. dotprompt compiles
// Handlebars with noEscape, so `{{userInput}}` keeps quotes, `<` and `&` as typed: agent prompts
// are not HTML (a test pins this, in case a dotprompt upgrade changes it).
import type { Message, ParsedPrompt, PromptFunction } from 'dotprompt';
import type { AgentDefinition } from './agent-definition.js';
import { loadDotprompt } from './dotprompt-loader.js';
import { PromptError } from './errors.js';

/** The values a prompt body can use. */
export interface RenderPromptOptions {
  /** The task text, `{{userInput}}`. */
  userInput: string;
  /** Run variables, available by name; they cannot replace userInput, agentName or environment. */
  variables?: Record<string, unknown>;
  /** `{{agentName}}`; default the definition's name. */
  agentName?: string;
  /** `{{environment}}`; default "". */
  environment?: string;
}

/** One chat message of a rendered prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** A rendered prompt: the leading system turn(s) as `system`, the rest as messages in order. */
export interface RenderedPrompt {
  system: string;
  messages: PromptMessage[];
}

function textOf(message: Message): string {
  return message.content
    .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : ''))
    .join('')
    .trim();
}

function roleOf(role: Message['role']): PromptMessage['role'] {
  if (role === 'system') return 'system';
  if (role === 'model') return 'assistant';
  return 'user';
}

/**
 * Compiled bodies per definition. Handlebars compiles lazily on a template's first render, so a
 * fresh compile per render paid the whole compilation every run; a definition never changes
 * (a changed file is parsed into a new one), so its compiled form is kept while it lives.
 */
const compiled = new WeakMap<AgentDefinition, Promise<PromptFunction>>();

function compiledBody(definition: AgentDefinition): Promise<PromptFunction> {
  let render = compiled.get(definition);
  if (!render) {
    render = loadDotprompt().then(({ Dotprompt }) =>
      new Dotprompt().compile({ template: definition.template } as ParsedPrompt),
    );
    compiled.set(definition, render);
  }
  return render;
}

/** Renders a prompt definition with dotprompt; leading system turns become `system`, the rest `messages`. */
export async function renderPrompt(
  definition: AgentDefinition,
  options: RenderPromptOptions,
): Promise<RenderedPrompt> {
  const defaults = definition.frontMatter.input;
  const inputDefaults =
    typeof defaults === 'object' &&
    defaults !== null &&
    'default' in defaults &&
    typeof defaults.default === 'object' &&
    defaults.default !== null
      ? (defaults.default as Record<string, unknown>)
      : {};
  const input: Record<string, unknown> = {
    ...inputDefaults,
    ...options.variables,
    userInput: options.userInput,
    agentName: options.agentName ?? definition.name,
    environment: options.environment ?? '',
  };
  let messages: Message[];
  try {
    const render = await compiledBody(definition);
    messages = (await render({ input })).messages;
  } catch (error) {
    throw new PromptError(
      'PROMPT_INVALID',
      `Cannot render prompt file ${definition.path}: ${(error as Error).message}. Fix the file and try again.`,
      { path: definition.path, reason: (error as Error).message },
      { cause: error },
    );
  }
  const system: string[] = [];
  const rest: PromptMessage[] = [];
  for (const message of messages) {
    const content = textOf(message);
    if (content === '') continue;
    const role = roleOf(message.role);
    if (role === 'system' && rest.length === 0) system.push(content);
    else rest.push({ role, content });
  }
  // A body that never mentions {{userInput}} still has to carry the task: it becomes the last user turn.
  if (!/\buserInput\b/.test(definition.template) && options.userInput.trim() !== '') {
    rest.push({ role: 'user', content: options.userInput });
  }
  return { system: system.join('\n\n'), messages: rest };
}
