// How a Junction MCP tool is declared: a zod shape for its arguments (the check and the
// type come from one schema) and a run function that answers with a JSON-safe object.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Logger } from '@junction/telemetry';
import type { ResolvedDeps } from './deps.js';

/** What a tool's run function gets besides its arguments. */
export interface ToolContext {
  deps: ResolvedDeps;
  logger: Logger;
  /** Aborts when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for them (a progress token); else nothing. */
  progress(progress: number, message: string): Promise<void>;
  /** Whether the client asked for progress notifications. */
  wantsProgress: boolean;
  /** Removes secrets from text that goes back to the client. */
  redactText(text: string): string;
  /** Removes secret-looking keys and known secret values from a value that goes back to the client. */
  redact(value: unknown): unknown;
}

/** A tool's answer: `data` becomes structuredContent and, as JSON, the text content. */
export interface ToolAnswer {
  data: Record<string, unknown>;
  /** A failed outcome that is not an exception (a run that ended in error). */
  isError?: boolean;
  /** A line put before the JSON in the text content. */
  summary?: string;
}

/** A tool with its types erased, as the dispatcher holds it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  shape: z.ZodRawShape;
  schema: z.ZodObject;
  annotations: ToolAnnotations;
  run(args: unknown, ctx: ToolContext): Promise<ToolAnswer>;
}

/** Declares a tool; `run` receives the parsed (and transformed) arguments. */
export function defineTool<Shape extends z.ZodRawShape>(tool: {
  name: string;
  title: string;
  description: string;
  shape: Shape;
  annotations: ToolAnnotations;
  run(args: z.output<z.ZodObject<Shape>>, ctx: ToolContext): Promise<ToolAnswer>;
}): ToolDefinition {
  return {
    ...tool,
    schema: z.object(tool.shape),
    run: (args, ctx) => tool.run(args as z.output<z.ZodObject<Shape>>, ctx),
  };
}

/** Dates as ISO strings, so structured content is plain JSON. */
export { isoOrNull as iso } from '@junction/agent-core/runs';
