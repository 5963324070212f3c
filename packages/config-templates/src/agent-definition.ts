import { z } from 'zod';
import { SCHEDULE_CATCH_UPS, SCHEDULE_OVERLAPS } from './cron.js';
import { CODING_BACKENDS } from './config-schema.js';

/** Model turns an agent may take when its prompt file sets no positive max_steps. */
export const DEFAULT_MAX_STEPS = 25;

const jsonObject = z.record(z.string(), z.unknown());

/** An agent as read from `agents/<name>.prompt`. */
export const agentDefinitionSchema = z.object({
  /** metadata.name, else top-level name, else the file stem. */
  name: z.string().min(1),
  description: z.string(),
  /** Model identifier; absent = the config's ai_model. */
  model: z.string().optional(),
  /** Step cap in model turns; DEFAULT_MAX_STEPS when absent or ≤ 0. */
  maxSteps: z.number().int().positive(),
  /** Tool names exactly as written (a `__` prefix is kept; matching strips it). */
  tools: z.array(z.string()),
  /** Sub-agents callable as tools. */
  agents: z.array(z.string()),
  tags: z.array(z.string()),
  version: z.string().optional(),
  /** input.schema as written (Picoschema or JSON Schema). */
  inputSchema: z.unknown().optional(),
  /** input.schema as JSON Schema. */
  inputJsonSchema: jsonObject.optional(),
  output: z
    .object({
      format: z.string().optional(),
      schema: z.unknown().optional(),
      jsonSchema: jsonObject.optional(),
    })
    .optional(),
  schedule: z
    .object({
      cron: z.string(),
      enabled: z.boolean(),
      variables: z.record(z.string(), z.string()),
      /** The task of a scheduled run; default "Scheduled execution" (see the scheduler). */
      task: z.string().optional(),
      timezone: z.string().optional(),
      catchUp: z.enum(SCHEDULE_CATCH_UPS).optional(),
      overlap: z.enum(SCHEDULE_OVERLAPS).optional(),
    })
    .optional(),
  coding: z
    .object({
      enabled: z.boolean(),
      backend: z.enum(CODING_BACKENDS).optional(),
      workspacePath: z.string().optional(),
    })
    .optional(),
  /** The front matter exactly as parsed, unknown keys included. */
  frontMatter: jsonObject,
  /** The body: the Handlebars template after the front matter. */
  template: z.string(),
  /** The file the definition was read from. */
  path: z.string(),
});

/** An agent as read from `agents/<name>.prompt`. */
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

/** The name a tool is matched by: reference prompt files write `__get_cost_and_usage` for `get_cost_and_usage`. */
export function canonicalToolName(name: string): string {
  return name.startsWith('__') ? name.slice(2) : name;
}
