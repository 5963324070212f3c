// Argument schemas shared by create_agent and update_agent.
import { hasControlCharacter } from '@junction/config-templates';
import { z } from 'zod';

/** Names and models never hold a line break, tab, escape or other control character. */
const noControlCharacters = (field: string) => ({
  error: `${field} must not contain control characters (line breaks, tabs, escapes…)`,
});

export const descriptionArg = z
  .string({ error: 'description must be a string' })
  .trim()
  .min(1, { error: 'description must not be empty' })
  .describe('One or two sentences on what the agent does; other agents and people read it.');

export const promptArg = z
  .string({ error: 'prompt must be a string' })
  .trim()
  .min(1, { error: 'prompt must not be empty' })
  .describe(
    'The system prompt. A text with {{role "system"}} / {{role "user"}} markers is used as the whole prompt body; ' +
      'plain text becomes the system turn and the task becomes the user turn.',
  );

export const maxStepsArg = z
  .number({ error: 'max_steps must be a whole number' })
  .int({ error: 'max_steps must be a whole number' })
  .min(1, { error: 'max_steps must be at least 1' })
  .max(1000, { error: 'max_steps must be at most 1000' })
  .describe('Most model turns a run may take. Default 25.');

export const toolNamesArg = z
  .array(
    z
      .string({ error: 'each tool name must be a string' })
      .min(1)
      .refine((name) => !hasControlCharacter(name), noControlCharacters('each tool name')),
    {
      error: 'tool_names must be a list of tool names',
    },
  )
  .max(500, { error: 'tool_names may list at most 500 tools' })
  .describe('Names of MCP tools of the environment the agent may use (see list_tools).');

export const modelArg = z
  .string({ error: 'model must be a string' })
  .trim()
  .min(1, { error: 'model must not be empty' })
  .refine((model) => !hasControlCharacter(model), noControlCharacters('model'))
  .describe('Model as provider/name, e.g. "openai/gpt-4o-mini". Default: the configured model.');
