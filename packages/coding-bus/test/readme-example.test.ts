import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { McpClientPool } from '@junction/agent-core/mcp';
import { AgentRunner } from '@junction/agent-core/runs';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger, createTracing } from '@junction/telemetry';
import { startFakeCodingBackend } from '@junction/tooling/fixtures/coding/fake-coding-backend.mjs';
import { startFakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { findNats, NATS_MISSING, startNats } from '@junction/tooling/fixtures/nats.mjs';
import { codingSettings, createCodingTools, startCodingBackends } from '../src/index.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

const haveNats = findNats() !== undefined;
if (!haveNats) console.warn(`*** SKIPPING coding-bus README example: ${NATS_MISSING} ***`);
const maybe = haveNats ? describe : describe.skip;

maybe('README example', () => {
  it('is the code below, verbatim, and a coding agent codes over the bus', async () => {
    const nats = await startNats();
    const model = await startFakeOpenAI();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-coding-readme-'));
    const paths = resolvePaths({ XDG_CONFIG_HOME: dir });
    const configHome = paths.configHome;
    fs.mkdirSync(configHome, { recursive: true });
    fs.writeFileSync(
      paths.configFile,
      [
        'ai_model: openai/gpt-test',
        `ai_base_url: ${model.url}`,
        'ai_api_key: sk-coding-readme-key',
        'coding:',
        '  backend: opencode-nats',
        '  nats:',
        `    url: ${nats.url}`,
        '',
      ].join('\n'),
    );
    const config = loadConfig({ env: { XDG_CONFIG_HOME: dir }, paths });
    // The coding assistant at the other end of the bus: carries out WRITE lines in a folder.
    const backendDir = path.join(dir, 'backend-workspaces');
    const assistant = await startFakeCodingBackend({ natsUrl: nats.url, workspaceDir: backendDir });
    const store = await openStore({ url: paths.databaseFile });
    const promptPath = path.join(dir, 'coder.prompt');
    fs.writeFileSync(
      promptPath,
      '---\ncoding:\n  enabled: true\n---\n{{role "system"}}\nYou write code.\n{{role "user"}}\n{{userInput}}\n',
    );
    const env = await store.environments.ensure('default');
    const agent = await store.agents.create(env.id, {
      name: 'coder',
      promptPath,
      codingEnabled: true,
    });
    const workerId = 'readme-worker';
    const created = await store.runs.create({
      agentId: agent.id,
      agentName: agent.name,
      environmentId: env.id,
      task: 'Add hello.txt',
      source: 'cli',
    });
    const run = (await store.runs.claim(created.id, workerId, 60_000))!;
    const logger = createLogger({ level: 'warn' });
    const tracing = createTracing({ exporter: 'memory' });
    const tracer = tracing.tracer;
    // The model opens a session, has the assistant write a file, closes the session.
    model.script([
      { toolCalls: [{ name: 'coding_open', arguments: { title: 'readme' } }] },
      {
        toolCalls: [
          {
            name: 'code',
            arguments: { session_id: '{{tool:session_id}}', instruction: 'WRITE hello.txt: hi' },
          },
        ],
      },
      { toolCalls: [{ name: 'coding_close', arguments: { session_id: '{{tool:session_id}}' } }] },
      { text: 'Added hello.txt.' },
    ]);
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]): void => void printed.push(args);
    try {
      // README-EXAMPLE-START
      const settings = codingSettings(config, process.env); // config.yaml's coding section, times in ms
      // Starts the config's backend now when coding is on: over the bus, an embedded nats-server when
      // coding.nats.url is a loopback port nobody listens on.
      const backends = await startCodingBackends({
        settings,
        logger,
        storeDir: path.join(configHome, 'nats'),
      });
      const runner = new AgentRunner({
        store,
        pool: new McpClientPool({ logger }),
        logger,
        tracer,
        modelSettings: config, // ai_provider, ai_model, ai_base_url, ai_api_key
        defaultTimeoutMs: 600_000,
        // Agents whose prompt file sets coding.enabled get the five coding tools.
        toolProviders: [
          createCodingTools({ settings, store, logger, backend: (kind) => backends.backend(kind) }),
        ],
      });
      const finished = await runner.execute(run, { workerId });
      console.log(finished.status, finished.finalResponse);
      await backends.stop();
      // README-EXAMPLE-END

      console.log = log;
      expect(printed).toEqual([['completed', 'Added hello.txt.']]);
      // The model was offered the five coding tools, and the key of config.yaml was sent.
      const offered = model.requests[0]!.body.tools!.map((t) => t.function.name);
      expect(offered).toEqual(
        expect.arrayContaining([
          'coding_open',
          'code',
          'coding_commit',
          'coding_push',
          'coding_close',
        ]),
      );
      expect(model.requests[0]!.authorization).toBe('Bearer sk-coding-readme-key');
      // Tasks went over the bus (coding_open readies the session, then code's instruction); the
      // assistant wrote the file in the session's workspace.
      expect(assistant.tasks.map((t) => t.prompt)).toEqual([
        expect.stringContaining('This is the start of a coding session (readme).'),
        'WRITE hello.txt: hi',
      ]);
      const workspace = path.join(backendDir, assistant.tasks[1]!.workspace.name);
      expect(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hi');
      const [session] = await store.codingSessions.list();
      expect(session).toMatchObject({ status: 'closed', title: 'readme' });
      const events = await store.runEvents.list(run.id, { limit: 1000 });
      expect(events.filter((e) => e.type === 'coding_event').length).toBeGreaterThan(0);
    } finally {
      console.log = log;
      await assistant.stop();
      await tracing.shutdown();
      await logger.close();
      await store.close();
      await model.close();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
