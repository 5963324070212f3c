// Read-only resources: the environments, one agent, one run, as JSON documents.
import { agentView } from '@junction/agent-core/agents';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { Auditor } from './audit.js';
import type { ResolvedDeps } from './deps.js';
import { toolFailure } from './errors.js';
import { requireAgent } from './lookups.js';
import { environmentsListing } from './tools/list-environments.js';
import { inspectRun } from './tools/inspect-run.js';

/** JSON-RPC code of an unknown resource (MCP specification). */
const RESOURCE_NOT_FOUND = -32002;
/** Agents listed by resources/list. */
const LISTED_AGENTS = 500;

function json(
  uri: URL,
  value: unknown,
): { contents: [{ uri: string; mimeType: string; text: string }] } {
  return {
    contents: [
      { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) },
    ],
  };
}

/** The id in a template variable, or a resource-not-found error. */
function idOf(variables: Variables, name: string, uri: URL): number {
  const raw = variables[name];
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (
    text === undefined ||
    !/^\d+$/.test(text) ||
    Number(text) < 1 ||
    !Number.isSafeInteger(Number(text))
  ) {
    throw new McpError(
      RESOURCE_NOT_FOUND,
      `Resource ${uri.href} not found: ${name} must be a string of digits.`,
    );
  }
  return Number(text);
}

async function notFoundAware<T>(uri: URL, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof McpError) throw err;
    const failure = toolFailure(err);
    if (failure.code.endsWith('_NOT_FOUND'))
      throw new McpError(RESOURCE_NOT_FOUND, `Resource ${uri.href} not found: ${failure.message}`);
    throw err;
  }
}

/** Registers junction://environments, junction://agents/{agent_id} and junction://runs/{run_id}. */
export function registerResources(server: McpServer, deps: ResolvedDeps, auditor: Auditor): void {
  server.registerResource(
    'environments',
    'junction://environments',
    {
      title: 'Environments',
      description:
        'Every environment with its id and counts of agents, MCP configs, servers and tools.',
      mimeType: 'application/json',
    },
    async (uri) => json(uri, await environmentsListing(deps)),
  );
  server.registerResource(
    'agent',
    new ResourceTemplate('junction://agents/{agent_id}', {
      list: async () => {
        const agents = await deps.store.agents.list({ limit: LISTED_AGENTS });
        return {
          resources: agents.map((a) => ({
            uri: `junction://agents/${a.id}`,
            name: a.name,
            description: a.description,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Agent',
      description: 'One agent: environment, model, prompt file, tools, sub-agents, schedule.',
      mimeType: 'application/json',
    },
    async (uri, variables) =>
      notFoundAware(uri, async () => {
        const agent = await requireAgent(deps.store, idOf(variables, 'agent_id', uri));
        return json(uri, await agentView(deps.store, agent));
      }),
  );
  server.registerResource(
    'run',
    new ResourceTemplate('junction://runs/{run_id}', { list: undefined }),
    {
      title: 'Run',
      description: 'One run with its status, result and events (without payloads).',
      mimeType: 'application/json',
    },
    async (uri, variables) =>
      notFoundAware(uri, async () =>
        json(
          uri,
          await inspectRun(deps.store, idOf(variables, 'run_id', uri), false, auditor.redact),
        ),
      ),
  );
}
