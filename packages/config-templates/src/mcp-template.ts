// MCP server templates: `{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`, with
// `servers` accepted as a synonym. Parsed after rendering, so values are final.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { TemplateError, describeValue, expecting } from './errors.js';

const stringValue = z
  .union([z.string(), z.number(), z.boolean()], { error: expecting('a string') })
  .transform(String);

/** A server started as a child process, spoken to over stdin/stdout. */
export const mcpStdioServerSchema = z.object({
  transport: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  cwd: z.string().optional(),
});

/** A server reached over Streamable HTTP (with SSE fallback). */
export const mcpHttpServerSchema = z.object({
  transport: z.literal('http'),
  url: z.string(),
  headers: z.record(z.string(), z.string()),
});

/** One server of a template. */
export const mcpServerSchema = z.discriminatedUnion('transport', [
  mcpStdioServerSchema,
  mcpHttpServerSchema,
]);

/** A rendered, validated MCP template. */
export const mcpTemplateSchema = z.object({
  /** The file stem, e.g. `github` for github.json. */
  name: z.string(),
  description: z.string().optional(),
  servers: z.record(z.string(), mcpServerSchema),
});

/** One server of a template. */
export type McpServer = z.infer<typeof mcpServerSchema>;
/** A server started as a child process. */
export type McpStdioServer = z.infer<typeof mcpStdioServerSchema>;
/** A server reached over HTTP. */
export type McpHttpServer = z.infer<typeof mcpHttpServerSchema>;
/** A rendered, validated MCP template. */
export type McpTemplate = z.infer<typeof mcpTemplateSchema>;

// What a server entry may look like on disk. Keys other clients write (type, disabled,
// timeout, alwaysAllow, ...) are tolerated and ignored.
const rawServerSchema = z.looseObject(
  {
    command: z
      .string({ error: expecting('a command (string)') })
      .min(1, { error: expecting('a command (not empty)') })
      .optional(),
    args: z.array(stringValue, { error: expecting('a list of strings') }).optional(),
    env: z
      .record(z.string(), stringValue, { error: expecting('a map of names to strings') })
      .optional(),
    cwd: z.string({ error: expecting('a folder path') }).optional(),
    url: z.url({ protocol: /^https?$/, error: expecting('an http:// or https:// URL') }).optional(),
    headers: z
      .record(z.string(), stringValue, { error: expecting('a map of names to strings') })
      .optional(),
  },
  { error: expecting('a map with "command" or "url"') },
);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keyOf(issuePath: readonly PropertyKey[]): string {
  return issuePath
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** The name of a template: its file stem (`github` for github.json). */
export function templateName(file: string): string {
  return path.basename(file).replace(/\.json$/i, '');
}

function invalidTemplate(file: string, problems: string[], cause?: unknown): TemplateError {
  return new TemplateError(
    'TEMPLATE_INVALID',
    `Invalid MCP template ${file}: ${problems.join('; ')}. Fix the file and sync again.`,
    { invalid: [{ file, problems }] },
    { cause: cause },
  );
}

/** Parses a rendered template; `file` gives the name (its stem) and is named in errors. */
export function parseMcpTemplate(text: string, file: string): McpTemplate {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidTemplate(file, [`not valid JSON (${(error as Error).message})`], error);
  }
  if (!isPlainObject(value))
    throw invalidTemplate(file, [
      `expected a JSON object at the top level, got ${describeValue(value)}`,
    ]);
  if (value.mcpServers !== undefined && value.servers !== undefined) {
    throw invalidTemplate(file, ['has both "mcpServers" and "servers"; keep one of them']);
  }
  const rawServers = value.mcpServers ?? value.servers;
  if (rawServers === undefined)
    throw invalidTemplate(file, ['has no "mcpServers" (or "servers") object']);
  if (!isPlainObject(rawServers))
    throw invalidTemplate(file, [
      `"mcpServers" must be an object of servers, got ${describeValue(rawServers)}`,
    ]);
  const problems: string[] = [];
  if (value.description !== undefined && typeof value.description !== 'string') {
    problems.push(`"description": expected a string, got ${describeValue(value.description)}`);
  }
  const servers: Record<string, McpServer> = {};
  for (const [name, raw] of Object.entries(rawServers)) {
    const parsed = rawServerSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const key = keyOf(issue.path);
        problems.push(`server "${name}"${key === '' ? '' : ` ${key}`}: ${issue.message}`);
      }
      continue;
    }
    const entry = parsed.data;
    if (entry.command !== undefined && entry.url !== undefined) {
      problems.push(
        `server "${name}" has both "command" and "url"; a server is either a process (command) or a URL`,
      );
    } else if (entry.command !== undefined) {
      servers[name] = {
        transport: 'stdio',
        command: entry.command,
        args: entry.args ?? [],
        env: entry.env ?? {},
        cwd: entry.cwd,
      };
    } else if (entry.url !== undefined) {
      servers[name] = { transport: 'http', url: entry.url, headers: entry.headers ?? {} };
    } else {
      problems.push(
        `server "${name}" has neither "command" (a process to start) nor "url" (an HTTP server)`,
      );
    }
  }
  if (problems.length > 0) throw invalidTemplate(file, problems);
  return mcpTemplateSchema.parse({
    name: templateName(file),
    description: typeof value.description === 'string' ? value.description : undefined,
    servers,
  });
}

/** sha256 (hex) of a template's text, for change detection. */
export function hashTemplate(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
