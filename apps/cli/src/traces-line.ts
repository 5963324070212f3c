// The trace receiver and viewer as serve and `junction traces` bind them, and the start-up lines
// that say where traces go and where to see them, and how queued runs reach workers.
import type {
  Composition,
  Listening,
  PortHint,
  TracesHealth,
  TracesPart,
} from '@junction/service-kit';

/** How a port flag and its config key are offered when the port is taken. */
export function portHint(flag: string, configKey: string): PortHint {
  return {
    inUse: `pick another port with ${flag} <port> (or ${configKey} in config.yaml)`,
    otherwise: 'Check api.host in config.yaml.',
    details: { flag },
  };
}

/**
 * Binds the receiver and the viewer of `traces` on `host` and tells the part where each
 * listens. A bind that fails goes to `failed` (serve warns and goes on); without it, it throws.
 * Answers the servers bound, for the caller to stop.
 */
export async function listenTraces(
  traces: TracesPart,
  host: string,
  ports: { receiver: number; viewer: number },
  failed?: (what: string, err: unknown, port: number) => void,
): Promise<Listening[]> {
  const { listen, urlOf } = await import('@junction/service-kit');
  const parts = [
    [
      'receiver',
      traces.receiverApp,
      'OTLP trace receiver',
      '--receiver-port',
      'traces.receiver_port',
    ],
    ['viewer', traces.viewerApp, 'trace viewer', '--viewer-port', 'traces.viewer_port'],
  ] as const;
  const servers: Listening[] = [];
  for (const [which, app, what, flag, key] of parts) {
    const port = ports[which];
    try {
      const bound = await listen(app.call(traces), { host, port, what, hint: portHint(flag, key) });
      servers.push(bound);
      traces.bound(which, urlOf(host, bound.port));
    } catch (err) {
      try {
        if (!failed) throw err;
        failed(what, err, port);
      } catch (fatal) {
        // Failing the start: what this call bound is stopped, not left for nobody to stop.
        await Promise.all(servers.map((s) => s.stop(0)));
        throw fatal;
      }
    }
  }
  return servers;
}

/** `spans → local store · viewer http://… · receiver http://…/v1/traces`. */
export function tracesLine(health: TracesHealth): string {
  const parts = [`spans → ${health.export}`];
  if (health.viewer) parts.push(`viewer ${health.viewer}`);
  if (health.receiver) parts.push(`receiver ${health.receiver}`);
  return parts.join(' · ');
}

/** How queued runs reach workers, for the start-up lines of serve and worker. */
export function queueLine(service: Pick<Composition, 'bus'>): string {
  const { bus } = service;
  if (!bus) return 'workers poll the store (set queue.nats.url to dispatch over NATS JetStream)';
  return `NATS JetStream ${bus.url}${bus.connected() ? '' : ' (not connected yet: workers poll the store meanwhile)'}`;
}
