#!/usr/bin/env node
// The baseline of bench/mcp-call: a bare MCP SDK server with one tool, `list_agents`, that
// answers a fixed payload (Junction's own answer, captured by the bench) — no store, no audit.
//   node bare-server.mjs stdio <payload.json>
//   node bare-server.mjs http <payload.json>     (prints "LISTENING <port>")
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const [mode, payloadFile] = process.argv.slice(2);
const payload = JSON.parse(readFileSync(payloadFile, 'utf8'));

function newServer() {
  const server = new McpServer({ name: 'bare', version: '1.0.0' });
  server.registerTool(
    'list_agents',
    {
      description: 'List agents.',
      inputSchema: {
        environment_id: z.string().optional(),
        limit: z.number().int().optional(),
        offset: z.number().int().optional(),
      },
    },
    async () => payload,
  );
  return server;
}

if (mode === 'stdio') {
  await newServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  const readBody = (req) =>
    new Promise((resolve) => {
      let data = '';
      req.setEncoding('utf8').on('data', (d) => (data += d));
      req.on('end', () => resolve(data ? JSON.parse(data) : undefined));
    });
  const server = http.createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    let transport = id ? sessions.get(id) : undefined;
    if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await newServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
}
