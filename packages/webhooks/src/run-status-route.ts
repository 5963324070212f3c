// GET /runs/:run_id: the status of a run POST /execute queued.
import { AgentCoreError } from '@junction/agent-core';
import { requireApiKey } from './api-key.js';
import { defineRoute } from './define-route.js';
import { WebhookError } from './errors.js';
import { runView } from './run-view.js';

/** GET /runs/:run_id, by the webhook key. */
export const runStatusRoute = defineRoute({
  method: 'get',
  path: '/runs/:run_id',
  handle(ctx) {
    const { store, keys } = ctx.deps;
    return [
      requireApiKey(keys),
      async (req, res) => {
        const raw = String(req.params.run_id);
        const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
        if (!Number.isSafeInteger(id)) {
          throw new WebhookError(
            'INVALID_REQUEST',
            `run_id must be a whole number (the run_id POST /execute returned); got ${JSON.stringify(raw.slice(0, 40))}.`,
            { field: 'run_id' },
          );
        }
        const run = await store.runs.get(id);
        if (!run) {
          throw new AgentCoreError(
            'RUN_NOT_FOUND',
            `No run has id ${id}. Use the run_id POST /execute returned, or list runs with \`junction runs list\`.`,
            { run_id: id },
          );
        }
        res.json({ run: runView(run) });
      },
    ];
  },
});
