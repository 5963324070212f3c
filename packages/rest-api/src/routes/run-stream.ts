// GET /api/v1/runs/stream: the run list, live, as Server-Sent Events. It watches the store (so
// it sees runs of every process sharing it) and sends the page again whenever it changed.
import type { Request, RequestHandler, Response } from 'express';
import { defineRoute } from '../define-route.js';
import { parseQuery, RUN_STREAM_PARAMS } from '../query-params.js';
import { badParams, envNotFound } from '../responses.js';
import type { RouteContext } from '../route-context.js';
import { RestApiError } from '../errors.js';
import { runListFilter } from '../run-list-filter.js';
import { runBody } from '../views.js';

/** How often a stream looks at the store. */
export const RUN_STREAM_POLL_MS = 500;
/** How often, while the run bus tells of every change, a stream still looks (a missed message). */
export const RUN_STREAM_BUS_POLL_MS = 5_000;
/** Changes told closer together than this make one look (a busy cluster tells many). */
const TOLD_LOOK_GAP_MS = 250;
/** A comment line this often keeps proxies from closing a quiet stream. */
export const RUN_STREAM_KEEPALIVE_MS = 15_000;
/** Streams one process serves at once; past it, 503 (each stream reads the store twice a second). */
export const MAX_RUN_STREAMS = 64;

/**
 * Sends `event: runs` with `{"runs": [...], "total": n}` at once and on every change of the
 * page the filters select; `: keep-alive` comments in between. Ends when the client goes.
 */
function streamRuns(ctx: RouteContext): RequestHandler {
  const { store, logger } = ctx.deps;
  let open = 0;
  return async (req: Request, res: Response): Promise<void> => {
    const q = parseQuery(req.query as Record<string, unknown>, RUN_STREAM_PARAMS);
    // Checked before the stream starts, so a bad environment is a plain JSON error.
    await runListFilter(ctx, q);
    if (open >= MAX_RUN_STREAMS) {
      throw new RestApiError(
        'TOO_MANY_STREAMS',
        `This process already serves ${MAX_RUN_STREAMS} run streams; close one, or poll GET /api/v1/runs.`,
        { limit: MAX_RUN_STREAMS },
      );
    }
    open += 1;
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    let last = '';
    let closed = false;
    let busy = false;
    // A change told while a look is under way: looked at again right after it.
    let again = false;
    const look = async (): Promise<void> => {
      if (closed) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      again = false;
      try {
        // Relative times (since=1h) move with the clock: the filter is read again each time.
        const filter = await runListFilter(ctx, q);
        const [runs, total] = await Promise.all([
          store.runs.list({ ...filter, limit: q.limit, offset: q.offset }),
          store.runs.count(filter),
        ]);
        const data = JSON.stringify({
          runs: runs.map((run) => runBody(run, ctx.deps.pricing)),
          total,
        });
        if (data !== last && !closed) {
          last = data;
          res.write(`event: runs\ndata: ${data}\n\n`);
        }
      } catch (err) {
        // The store is away for a moment: the stream stays, and says so once per failure.
        const message = ctx.clean(err instanceof Error ? err.message : String(err));
        logger.warn('run stream could not read the store', { error: message });
        if (!closed) res.write(`event: error\ndata: ${JSON.stringify({ message })}\n\n`);
      } finally {
        busy = false;
      }
      if (again) void look();
    };
    // The client went while the filter was checked: nothing to set up.
    if (req.destroyed) {
      open -= 1;
      return;
    }
    const changes = ctx.deps.runChanges;
    let toldTimer: NodeJS.Timeout | undefined;
    const unlisten = changes?.subscribe(() => {
      toldTimer ??= setTimeout(() => {
        toldTimer = undefined;
        void look();
      }, TOLD_LOOK_GAP_MS);
    });
    let lastLook = 0;
    const poll = setInterval(() => {
      // With the bus up, changes come told: the store is only looked at now and then.
      const every = changes?.connected() ? RUN_STREAM_BUS_POLL_MS : RUN_STREAM_POLL_MS;
      if (Date.now() - lastLook < every - 10) return;
      lastLook = Date.now();
      void look();
    }, RUN_STREAM_POLL_MS);
    const keepAlive = setInterval(() => {
      if (!closed) res.write(': keep-alive\n\n');
    }, RUN_STREAM_KEEPALIVE_MS);
    const stop = (): void => {
      if (closed) return;
      closed = true;
      open -= 1;
      clearInterval(poll);
      clearInterval(keepAlive);
      clearTimeout(toldTimer);
      unlisten?.();
    };
    req.on('close', stop);
    res.on('close', stop);
    await look();
  };
}

/** GET /api/v1/runs/stream (one of RUN_ROUTES, in runs.ts). */
export const streamRunsRoute = defineRoute({
  operationId: 'streamRuns',
  method: 'get',
  path: '/api/v1/runs/stream',
  summary: 'Follow the run list live (Server-Sent Events)',
  description:
    'The page of runs GET /api/v1/runs answers for the same filters, as Server-Sent Events: `event: runs` with `data: {"runs": [...], "total": n}` at once and whenever that page changes (the store is read twice a second, so runs of every process sharing it appear), `: keep-alive` comments every 15 s, `event: error` while the store cannot be read. The stream ends when the client disconnects. Send the API key in the Authorization header (read the stream with fetch; EventSource cannot send headers).',
  tag: 'runs',
  auth: true,
  query: RUN_STREAM_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'The stream of run pages', body: { mediaType: 'text/event-stream' } },
    400: badParams('an unknown, repeated or malformed query parameter'),
    404: envNotFound,
    503: {
      description: 'TOO_MANY_STREAMS: this process already serves 64 streams',
      body: 'Error',
    },
  },
  handle: streamRuns,
});
