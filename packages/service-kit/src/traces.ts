// Traces kept by Junction itself (issue 19): where a process's spans go, the OTLP/HTTP receiver
// and the trace viewer of `junction serve` and `junction traces`, the retention of stored spans,
// the dashboard's static files, and the note that lets one-off commands find a running receiver.
import type { Config } from '@junction/config-templates';
import type { Store } from '@junction/store';
import type { Logger, TracingOptions } from '@junction/telemetry';
import { createTraceReceiverApp, startTraceRetention, StoreSpanExporter } from '@junction/traces';
import { WEB_UI_ROOT } from '@junction/web-ui';
import express from 'express';
import type { KeyRing } from './api-keys.js';
import { LIVE_RECEIVER, LocalReceiverExporter } from './local-receiver-exporter.js';
import { leaveProcessNote, notePath, readProcessNote, removeProcessNote } from './process-note.js';

/** What /health and the start-up line say of traces. */
export interface TracesHealth {
  /** Where this process's own spans go: `local store`, an OTLP URL, or `nowhere`. */
  export: string;
  /** The OTLP/HTTP receiver this process serves, when it serves one. */
  receiver: string | null;
  /** The trace viewer this process serves, when it serves one. */
  viewer: string | null;
}

/** The note a process serving the receiver leaves in the config folder (see findLocalReceiver). */
export const RECEIVER_NOTE = 'traces-receiver.json';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `http://host:port` for a bound host (IPv6 in brackets, the any-address as loopback). */
export function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * The receiver a running `serve` (or `junction traces`) of this workspace left its note for,
 * when its process is still alive: one-off commands export their spans there.
 */
export function findLocalReceiver(configHome: string): string | undefined {
  return readProcessNote(notePath(configHome, RECEIVER_NOTE));
}

/** How a process exports its spans (createTracing's options), and what /health says of it. */
export function traceExportOf(
  config: Config,
  store: Store,
  logger: Logger,
  local: boolean,
  configHome: string | undefined,
): {
  options: Pick<TracingOptions, 'exporter' | 'endpoint' | 'spanExporter' | 'destination' | 'batch'>;
} {
  if (config.otel_endpoint)
    return { options: { exporter: 'otlp', endpoint: config.otel_endpoint } };
  if (local) {
    return {
      options: {
        exporter: 'custom',
        spanExporter: new StoreSpanExporter({ store, logger }),
        destination: 'local store',
        // A second after a run ends its trace is on the run's page (the SDK's default is 5 s).
        batch: { scheduledDelayMillis: 1000 },
      },
    };
  }
  if (configHome === undefined) return { options: { exporter: 'none' } };
  const spanExporter = new LocalReceiverExporter({
    configHome,
    logger,
    headers: config.telemetry.headers,
    ...(config.telemetry.certificate ? { certificatePath: config.telemetry.certificate } : {}),
  });
  return { options: { exporter: 'custom', spanExporter, destination: LIVE_RECEIVER } };
}

/** The UI's settings, served next to its index.html as ui-config.json. */
export interface UiConfig {
  mode: 'dashboard' | 'viewer';
  viewer_url: string | null;
  dashboard_url: string | null;
  version: string;
}

/**
 * The web UI's static files with its ui-config.json: built by the repository's build, served
 * with a policy that lets the page load nothing from anywhere but here.
 */
export function uiHandler(uiConfig: () => UiConfig): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  router.get('/ui-config.json', (_req, res) => {
    res.set('Cache-Control', 'no-store').json(uiConfig());
  });
  router.use(
    express.static(WEB_UI_ROOT, { index: 'index.html', redirect: true, fallthrough: true }),
  );
  return router;
}

/** Admits a request presenting one of the keys (when keys are set), else answers 401 in JSON. */
function keyCheck(keys: KeyRing): express.RequestHandler {
  return (req, res, next) => {
    if (!keys.required) return next();
    const key = keys.presented(req.headers);
    if (key !== undefined && keys.matches(key)) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({
        error: {
          code: key === undefined ? 'API_KEY_MISSING' : 'API_KEY_INVALID',
          message:
            'The trace receiver takes the API keys of the REST API: send Authorization: Bearer <key> (for a tool server: OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<key>).',
        },
      });
  };
}

export interface TracesPartOptions {
  config: Config;
  store: Store;
  logger: Logger;
  keys: KeyRing;
  /** The Host/Origin check of loopback binds. */
  guard?: express.RequestHandler;
  configHome?: string;
  version: string;
  /** The viewer's REST routes (the trace routes only), built by the composition root. */
  viewerApi: () => express.RequestHandler;
}

/** The receiver and viewer apps, the retention, and the note; the app binds the ports. */
export interface TracesPart {
  receiverApp(): express.Express;
  viewerApp(): express.Express;
  /** Bound: remembered for /health, the start-up line and the note one-off commands read; `dashboard` is the REST port's, for the viewer's links to runs. */
  bound(which: 'receiver' | 'viewer' | 'dashboard', url: string): void;
  start(): void;
  stop(): void;
  health(exportTo: string): TracesHealth;
}

export function tracesPart(options: TracesPartOptions): TracesPart {
  const { config, store, logger, keys, guard } = options;
  let receiver: string | null = null;
  let viewer: string | null = null;
  let dashboard: string | null = null;
  let retention: { stop(): void } | undefined;
  const noteFile =
    options.configHome === undefined ? undefined : notePath(options.configHome, RECEIVER_NOTE);
  return {
    receiverApp() {
      const app = express();
      app.disable('x-powered-by');
      if (guard) app.use(guard);
      app.use(keyCheck(keys));
      app.use(
        createTraceReceiverApp({
          store,
          logger,
          maxBodyBytes: config.traces.max_body_megabytes * 1024 * 1024,
        }),
      );
      return app;
    },
    viewerApp() {
      const app = express();
      app.disable('x-powered-by');
      app.set('etag', false);
      if (guard) app.use(guard);
      app.use(
        uiHandler(() => ({
          mode: 'viewer',
          viewer_url: viewer,
          dashboard_url: dashboard,
          version: options.version,
        })),
      );
      app.use(options.viewerApi());
      return app;
    },
    bound(which, url) {
      if (which === 'receiver') {
        receiver = `${url}/v1/traces`;
        if (noteFile !== undefined) {
          try {
            leaveProcessNote(noteFile, url);
          } catch (err) {
            logger.warn(
              'could not leave the trace receiver note; other commands will not find it',
              {
                file: noteFile,
                error: err instanceof Error ? err.message : String(err),
              },
            );
          }
        }
      } else if (which === 'viewer') viewer = url;
      else dashboard = url;
    },
    start() {
      retention ??= startTraceRetention({
        store,
        logger,
        retentionMs: config.traces.retention_days * DAY_MS,
        maxBytes: config.traces.max_megabytes * 1024 * 1024,
      });
    },
    stop() {
      retention?.stop();
      retention = undefined;
      if (noteFile !== undefined && receiver !== null) {
        // Only our own note: another process may have taken the port (and the note) since.
        removeProcessNote(noteFile);
      }
    },
    health(exportTo) {
      return { export: exportTo, receiver, viewer };
    },
  };
}
