// Registers the tools on an McpServer and answers tools/call itself, so that every call —
// unknown tool, bad arguments, refusal, success — is checked the same way and audited once.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Logger } from '@junction/telemetry';
import type { Auditor } from './audit.js';
import type { ResolvedDeps } from './deps.js';
import { toolFailure } from './errors.js';
import type { ToolAnswer, ToolContext, ToolDefinition } from './tool-kit.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Longest tool name copied into an audit row for an unknown tool. */
const MAX_ACTION_LENGTH = 100;

export interface DispatchOptions {
  deps: ResolvedDeps;
  logger: Logger;
  auditor: Auditor;
  /** Who is calling, for the audit row (known once initialize has been answered). */
  actor(): string | null;
}

/** The SDK's wording, so clients see the same message whichever layer refused. */
function validationMessage(tool: string, error: z.ZodError): string {
  const issues = error.issues
    .map((issue) =>
      issue.path.length > 0 ? `${issue.message} at ${issue.path.join('.')}` : issue.message,
    )
    .join('\n');
  return `Input validation error: Invalid arguments for tool ${tool}: ${issues}`;
}

function answerResult(answer: ToolAnswer): CallToolResult {
  // Compact: the text is read by models, and indentation only costs tokens.
  const json = JSON.stringify(answer.data);
  return {
    content: [{ type: 'text', text: answer.summary ? `${answer.summary}\n\n${json}` : json }],
    structuredContent: answer.data,
    ...(answer.isError ? { isError: true } : {}),
  };
}

function errorResult(code: string, message: string, details?: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: `${message} (${code})` }],
    structuredContent: {
      error: { code, message, ...(details !== undefined ? { details } : {}) },
    },
    isError: true,
  };
}

/** Registers `tools` on `server` and installs the audited tools/call handler. */
export function installTools(
  server: McpServer,
  tools: readonly ToolDefinition[],
  options: DispatchOptions,
): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const { auditor, logger } = options;

  const call = async (name: string, args: unknown, extra: Extra): Promise<CallToolResult> => {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const tool = byName.get(name);
    if (!tool) {
      const message = `Unknown tool "${name.slice(0, MAX_ACTION_LENGTH)}". Call tools/list for the tools Junction offers.`;
      auditor.recordAfterAnswer(
        {
          action: name.slice(0, MAX_ACTION_LENGTH),
          arguments: args,
          outcome: 'error',
          durationMs: elapsed(),
          error: message,
          code: 'TOOL_UNKNOWN',
        },
        options.actor(),
      );
      throw new McpError(ErrorCode.InvalidParams, message);
    }
    let result: CallToolResult;
    let failure: { message: string; code: string } | undefined;
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) {
      const message = validationMessage(name, parsed.error);
      failure = { message, code: 'ARGUMENT_INVALID' };
      result = errorResult('ARGUMENT_INVALID', message, {
        issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    } else {
      const progressToken = extra._meta?.progressToken;
      const ctx: ToolContext = {
        deps: options.deps,
        logger,
        signal: extra.signal,
        redactText: auditor.redactText,
        redact: auditor.redact,
        wantsProgress: progressToken !== undefined,
        async progress(progress, message): Promise<void> {
          if (progressToken === undefined) return;
          await extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress, message },
            })
            .catch(() => undefined);
        },
      };
      try {
        const answer = await tool.run(parsed.data, ctx);
        result = answerResult(answer);
        if (answer.isError) {
          const error = answer.data.error;
          failure = {
            message: typeof error === 'string' ? error : (answer.summary ?? 'failed'),
            code: 'RUN_FAILED',
          };
        }
      } catch (err) {
        const f = toolFailure(err);
        const message = auditor.redactText(f.message);
        if (f.fault === 'server') {
          logger.error('MCP tool failed', { tool: name, code: f.code, error: message });
          const text = `Junction could not complete ${name}: ${message}. Try again; if it keeps failing, check the Junction server logs.`;
          result = errorResult(f.code, text);
        } else {
          result = errorResult(f.code, message, auditor.redact(f.details));
        }
        failure = { message, code: f.code };
      }
    }
    auditor.recordAfterAnswer(
      {
        action: name,
        arguments: args,
        outcome: failure ? 'error' : 'success',
        durationMs: elapsed(),
        ...(failure ? { error: failure.message, code: failure.code } : {}),
      },
      options.actor(),
    );
    return result;
  };

  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.shape,
        annotations: { title: tool.title, ...tool.annotations },
      },
      // Never reached: the handler below answers tools/call. Kept correct anyway.
      (args: unknown, extra: Extra) => call(tool.name, args, extra),
    );
  }
  // Replaces the SDK's tools/call handler (registered by registerTool above); tools/list stays the SDK's.
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    call(request.params.name, request.params.arguments, extra),
  );
}
