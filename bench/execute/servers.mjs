#!/usr/bin/env node
// The two contenders of bench/execute, each in its own process, printing "LISTENING <port>":
//   node servers.mjs junction <store file>   Junction's webhook app: POST /execute validates,
//                                            looks the agent up, queues a run in the libSQL file
//                                            (no workers here: nothing executes the runs)
//   node servers.mjs bare                    a bare express app answering 202
import { openSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import express from 'express';
import { createModelCheck } from '@junction/agent-core/models';
import { createRunDoor } from '@junction/agent-core/runs';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { createWebhookApp } from '@junction/webhooks';

const [kind, file] = process.argv.slice(2);
let app;
if (kind === 'junction') {
  const store = await openStore({ url: file });
  const env = await store.environments.ensure('default');
  if (!(await store.agents.getByName(env.id, 'bench'))) {
    await store.agents.create(env.id, { name: 'bench', description: 'bench agent' });
  }
  // As the webhook-server app logs (apps/webhook-server): one JSON-lines output with the API
  // key among the secrets and the service name on every record. Its stdout here is a file
  // written synchronously, as Node writes stdout to a pipe or a file.
  const fd = openSync(`${file}.log`, 'a');
  const logger = createLogger({
    level: 'info',
    format: 'json',
    stream: new Writable({
      write: (chunk, _encoding, done) => {
        writeSync(fd, chunk);
        done();
      },
    }),
    env: {},
    secrets: ['bench-key'],
    base: { service: 'junction-webhook-server' },
  });
  // As the webhook-server app composes it: the one run door with the model check, no workers.
  const checkModel = createModelCheck(
    { ai_model: 'openai/gpt-4o-mini' },
    { OPENAI_API_KEY: 'sk-bench-model-key' },
  );
  const runs = createRunDoor({ store, checkModel });
  app = createWebhookApp({ store, runs, logger, enabled: true, apiKey: 'bench-key' });
} else {
  app = express();
  app.use(express.json());
  app.post('/execute', (req, res) => {
    res.status(202).json({
      run_id: 1,
      agent_id: 1,
      agent_name: req.body.agent_name,
      status: 'running',
      message: 'accepted',
    });
  });
}
const server = app.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
