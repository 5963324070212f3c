// The management channel: one bidirectional ManagementChannel stream to the platform, opened
// with StationAuth and answered by AuthResult; then platform requests answered on the stream by
// request_id, a unary Heartbeat at the platform's interval, unary SendRun run reports, and
// Disconnect. Lost connections come back with exponential backoff and jitter; a refused key,
// a revoked key and a replaced station do not.
import os from 'node:os';
import tls from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { backoffDelay } from '@junction/errors';
import type { Logger } from '@junction/telemetry';
import { connectError, connectFailure } from './connect-error.js';
import {
  PLATFORM_REQUESTS,
  timestamp,
  type AuthResult,
  type Disconnect,
  type ErrorCode,
  type ManagementMessage,
  type PlatformRequestKind,
  type SendRunRequest,
  type StationAuth,
} from './messages.js';
import { lighthouseService } from './protocol.js';
import type { ManagementSettings } from './settings.js';
import { writeStatus } from './workspace-files.js';

export type ManagementState = 'disabled' | 'connecting' | 'connected' | 'error';

export interface ManagementStatus {
  state: ManagementState;
  /** `host:port` of the platform. */
  platform: string;
  stationName: string;
  stationId?: string;
  orgId?: string;
  /** When the platform last acknowledged this station (registration, heartbeat, run report). */
  lastSyncAt?: Date;
  /** Why the channel is down (`failed to connect to …`, a Disconnect reason). */
  error?: string;
}

/** A fault a request handler raises: sent to the platform as the protocol's ManagementError. */
export class ManagementRequestError extends Error {
  override readonly name = 'ManagementRequestError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Sends one answer to the request being handled; `fields` holds the oneof case and `success`. */
export type Reply = (fields: { success: boolean } & Record<string, unknown>) => void;

/** What this station tells the platform and how it answers the platform's requests. */
export interface StationService {
  describe(): Promise<Pick<StationAuth, 'agents' | 'tools' | 'mcp_servers'>>;
  /** Answers one request; may reply several times (an execution: queued, running, done). */
  handle(kind: PlatformRequestKind, payload: unknown, reply: Reply): Promise<void>;
}

export interface ManagementChannelOptions {
  settings: ManagementSettings;
  station: StationService;
  logger: Logger;
  version: string;
  /** First reconnect delay and its cap; each delay is jittered to 50–100%. Default 1 s … 60 s. */
  backoff?: { initialMs: number; maxMs: number };
  /** How long the platform has to answer StationAuth. Default 15 s. */
  connectTimeoutMs?: number;
  /** Heartbeat interval when the platform names none. Default 30 s. */
  defaultHeartbeatMs?: number;
  /** Runs in flight, for the heartbeat's metrics. */
  activeRuns?: () => number;
  startedAt?: Date;
  random?: () => number;
  /** Keep `management-status.json` in the workspace current (for `junction auth status`). Default true. */
  statusFile?: boolean;
}

const NO_RECONNECT: ReadonlySet<string> = new Set([
  'DISCONNECT_REASON_KEY_REVOKED',
  'DISCONNECT_REASON_AUTH_FAILED',
]);

/** How a session ended. */
type SessionEnd =
  | { kind: 'disconnect'; disconnect: Disconnect }
  | { kind: 'lost'; detail: string }
  | { kind: 'stopped' }
  | { kind: 'unregistered'; detail: string };

interface Session {
  client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  call: grpc.ClientDuplexStream<ManagementMessage, ManagementMessage>;
  auth: AuthResult;
  ended: Promise<SessionEnd>;
  end(outcome: SessionEnd): void;
}

/** grpc-js credentials for the settings: system CAs plus `ca_file`, or plain text. */
export function channelCredentials(settings: ManagementSettings): grpc.ChannelCredentials {
  if (!settings.useTls) return grpc.credentials.createInsecure();
  if (!settings.ca) return grpc.credentials.createSsl();
  const roots = Buffer.concat([Buffer.from(`${tls.rootCertificates.join('\n')}\n`), settings.ca]);
  return grpc.credentials.createSsl(roots);
}

function authRequestId(): string {
  return `auth_${Math.floor(Date.now() / 1000)}`;
}

export class ManagementChannel {
  readonly #o: ManagementChannelOptions;
  readonly #backoff: { initialMs: number; maxMs: number };
  #status: ManagementStatus;
  #session: Session | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wakeSleep: (() => void) | undefined;
  readonly #connectedListeners: Array<() => void> = [];

  constructor(options: ManagementChannelOptions) {
    this.#o = options;
    this.#backoff = options.backoff ?? { initialMs: 1_000, maxMs: 60_000 };
    this.#status = {
      state: 'connecting',
      platform: options.settings.endpoint,
      stationName: options.settings.name,
    };
  }

  status(): ManagementStatus {
    return { ...this.#status };
  }

  /** Called each time the station is (re)registered. */
  onConnected(listener: () => void): void {
    this.#connectedListeners.push(listener);
  }

  /** Connects in the background and keeps connecting until stopped. */
  start(): void {
    this.#loop ??= this.#run().catch((err: unknown) => {
      this.#o.logger.error('management channel stopped on an unexpected error', {
        error: String(err),
      });
    });
  }

  /** Closes the stream (the platform sees the station go) and stops reconnecting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wakeSleep?.();
    this.#session?.end({ kind: 'stopped' });
    await this.#loop;
    if (this.#status.state === 'connected' || this.#status.state === 'connecting') {
      this.#setStatus({ state: 'error', error: 'stopped' }, 'stopped');
    }
  }

  /** Sends one run report (unary SendRun); rejects when the station is not registered. */
  sendRun(request: Omit<SendRunRequest, 'registration_key'>): Promise<{ run_id: string }> {
    const session = this.#session;
    if (!session || this.#status.state !== 'connected') {
      return Promise.reject(new Error('the management channel is not connected'));
    }
    return new Promise((resolve, reject) => {
      session.client.SendRun!(
        { ...request, registration_key: this.#o.settings.key },
        { deadline: Date.now() + 15_000 },
        (
          err: grpc.ServiceError | null,
          res: { success: boolean; message: string; run_id: string },
        ) => {
          if (err) return reject(new Error(`SendRun failed: ${err.details || err.message}`));
          if (!res.success)
            return reject(new Error(`the platform refused the run report: ${res.message}`));
          this.#synced();
          resolve({ run_id: res.run_id });
        },
      );
    });
  }

  /**
   * Connects once, authenticates and closes: what `junction auth login` uses to check a key.
   * Resolves with the platform's AuthResult; rejects with a ManagementClientError (MANAGEMENT_KEY_REFUSED, MANAGEMENT_UNREACHABLE).
   */
  static async check(
    options: Pick<ManagementChannelOptions, 'settings' | 'station' | 'version' | 'logger'> & {
      connectTimeoutMs?: number;
    },
  ): Promise<AuthResult> {
    const channel = new ManagementChannel({ ...options, statusFile: false });
    const session = await channel.#open();
    session.end({ kind: 'stopped' });
    await session.ended;
    return session.auth;
  }

  async #run(): Promise<void> {
    const { settings, logger } = this.#o;
    let attempt = 0;
    while (!this.#stopped) {
      this.#setStatus({ state: 'connecting' });
      let end: SessionEnd;
      try {
        const session = await this.#open();
        if (this.#stopped) {
          session.end({ kind: 'stopped' });
          await session.ended;
          break;
        }
        attempt = 0;
        this.#session = session;
        const heartbeatMs =
          Number(session.auth.heartbeat_interval_ms) || (this.#o.defaultHeartbeatMs ?? 30_000);
        this.#setStatus({
          state: 'connected',
          stationId: session.auth.station_id,
          orgId: session.auth.org_id,
          lastSyncAt: new Date(),
          error: undefined,
        });
        logger.info(
          `registered with the management platform ${settings.endpoint} as station ${session.auth.station_id || settings.name} in organization ${session.auth.org_id || '(none given)'}`,
          {
            platform: settings.endpoint,
            station_id: session.auth.station_id,
            station_name: settings.name,
            org_id: session.auth.org_id,
            heartbeat_ms: heartbeatMs,
            key_source: settings.keySource,
          },
        );
        for (const listener of this.#connectedListeners) listener();
        const beat = setInterval(() => this.#heartbeat(session), heartbeatMs);
        beat.unref();
        end = await session.ended;
        clearInterval(beat);
        this.#session = undefined;
      } catch (err) {
        const failure = connectError(settings.endpoint, err);
        this.#setStatus({ state: 'error', error: failure.message });
        if (failure.code === 'MANAGEMENT_KEY_REFUSED') {
          logger.error(`${failure.message} Not reconnecting until Junction is restarted.`, {
            platform: settings.endpoint,
            cause: failure.details.cause,
          });
          return;
        }
        logger[attempt === 0 ? 'error' : 'warn'](failure.message, {
          platform: settings.endpoint,
          cause: failure.details.cause,
          attempt: attempt + 1,
        });
        end = { kind: 'lost', detail: failure.message };
      }
      if (this.#stopped || end.kind === 'stopped') break;
      let delay = this.#delay(attempt);
      if (end.kind === 'disconnect') {
        const d = end.disconnect;
        const why = `${d.reason || 'no reason given'} (${d.code})`;
        if (NO_RECONNECT.has(d.code) || !d.should_reconnect) {
          const message = `the management platform disconnected this station: ${why}; not reconnecting${
            NO_RECONNECT.has(d.code)
              ? ' — the registration key is no longer accepted: get a new one from the platform dashboard, set management.registration_key (or run `junction auth login`) and restart Junction'
              : d.code === 'DISCONNECT_REASON_REPLACED'
                ? ' — another station registered with the same name and key: give each station its own management.name'
                : ''
          }.`;
          this.#setStatus({ state: 'error', error: message });
          logger.error(message, { platform: settings.endpoint, code: d.code });
          return;
        }
        const hinted = Number(d.reconnect_delay_ms);
        if (hinted > 0) delay = hinted;
        this.#setStatus({ state: 'connecting', error: `disconnected by the platform: ${why}` });
        logger.warn(
          `the management platform disconnected this station: ${why}; reconnecting in ${delay} ms`,
          {
            platform: settings.endpoint,
            code: d.code,
          },
        );
      } else if (end.kind === 'lost' || end.kind === 'unregistered') {
        if (end.kind === 'unregistered' || this.#status.state === 'connected') {
          logger.warn(`management channel lost (${end.detail}); reconnecting in ${delay} ms`, {
            platform: settings.endpoint,
          });
          this.#setStatus({ state: 'connecting', error: end.detail });
        }
      }
      attempt++;
      await this.#sleep(delay);
    }
  }

  /** Exponential backoff with jitter: base·2^attempt capped, then 50–100% of it. */
  #delay(attempt: number): number {
    const { initialMs, maxMs } = this.#backoff;
    return backoffDelay(attempt, {
      firstMs: initialMs,
      maxMs,
      jitter: 0.5,
      ...(this.#o.random ? { random: this.#o.random } : {}),
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeSleep = done;
    });
  }

  #synced(): void {
    this.#setStatus({ lastSyncAt: new Date() });
  }

  #setStatus(patch: Partial<ManagementStatus>, fileState?: 'stopped'): void {
    this.#status = { ...this.#status, ...patch };
    for (const key of Object.keys(patch) as Array<keyof ManagementStatus>) {
      if (patch[key] === undefined) delete this.#status[key];
    }
    if (this.#o.statusFile === false) return;
    const s = this.#status;
    try {
      writeStatus(this.#o.settings.configHome, {
        state: fileState ?? (s.state === 'disabled' ? 'stopped' : s.state),
        platform: s.platform,
        station_name: s.stationName,
        ...(s.stationId ? { station_id: s.stationId } : {}),
        ...(s.orgId ? { org_id: s.orgId } : {}),
        ...(this.#o.settings.keySource ? { key_source: this.#o.settings.keySource } : {}),
        ...(s.lastSyncAt ? { last_sync_at: s.lastSyncAt.toISOString() } : {}),
        ...(s.error ? { error: s.error } : {}),
        pid: process.pid,
        updated_at: new Date().toISOString(),
      });
    } catch (err) {
      this.#o.logger.debug('could not write the management status file', { error: String(err) });
    }
  }

  /** Opens the stream and authenticates; resolves once the platform accepted the station. */
  async #open(): Promise<Session> {
    const { settings, version } = this.#o;
    if (settings.key === undefined) {
      throw connectFailure(
        settings.endpoint,
        'key',
        'no registration key: set management.registration_key in config.yaml (or JUNCTION_MANAGEMENT_REGISTRATION_KEY), or run `junction auth login`',
      );
    }
    const described = await this.#o.station.describe();
    const { Client } = lighthouseService();
    const client = new Client(settings.endpoint, channelCredentials(settings), {
      // Reconnection is this class's job (with its own backoff): one connection per session,
      // never a subchannel shared with an earlier client and its reconnect backoff.
      'grpc.enable_retries': 0,
      'grpc.use_local_subchannel_pool': 1,
      'grpc.keepalive_time_ms': 60_000,
    }) as Session['client'];
    const call = client.ManagementChannel!() as Session['call'];
    const key = settings.key;
    const auth: StationAuth = {
      registration_key: key,
      name: settings.name,
      tags: settings.tags,
      hostname: os.hostname(),
      version,
      os: process.platform,
      arch: process.arch,
      environment: settings.environment,
      ...described,
    };
    return new Promise<Session>((resolve, reject) => {
      let settle: ((end: SessionEnd) => void) | undefined;
      const ended = new Promise<SessionEnd>((r) => (settle = r));
      let session: Session | undefined;
      let finished = false;
      const finish = (outcome: SessionEnd): void => {
        if (finished) return;
        finished = true;
        call.removeAllListeners('data');
        call.on('error', () => undefined);
        call.end();
        call.cancel();
        client.close();
        settle!(outcome);
      };
      const fail = (err: unknown): void => {
        clearTimeout(timer);
        finish({ kind: 'lost', detail: String(err) });
        reject(connectError(settings.endpoint, err));
      };
      const timer = setTimeout(
        () =>
          fail(
            connectFailure(
              settings.endpoint,
              'network',
              `no answer to the registration within ${Math.round((this.#o.connectTimeoutMs ?? 15_000) / 1000)} s`,
            ),
          ),
        this.#o.connectTimeoutMs ?? 15_000,
      );
      call.on('data', (msg: ManagementMessage) => {
        if (!session) {
          if (msg.message === 'auth_result') {
            clearTimeout(timer);
            const result = msg.auth_result as AuthResult;
            if (!result.success) {
              fail(
                connectFailure(settings.endpoint, 'key', result.error || 'authentication failed'),
              );
              return;
            }
            session = { client, call, auth: result, ended, end: finish };
            resolve(session);
          } else if (msg.message === 'disconnect') {
            const d = msg.disconnect as Disconnect;
            fail(
              connectFailure(
                settings.endpoint,
                NO_RECONNECT.has(d.code) ? 'key' : 'platform',
                `${d.reason || 'disconnected'} (${d.code})`,
              ),
            );
          }
          return;
        }
        this.#onMessage(session, msg);
      });
      call.on('error', (err: grpc.ServiceError) => {
        if (!session) fail(err);
        else finish({ kind: 'lost', detail: err.details || err.message });
      });
      call.on('end', () => {
        if (!session)
          fail(new Error('the platform closed the stream before answering the registration'));
        else finish({ kind: 'lost', detail: 'the platform closed the stream' });
      });
      call.write({
        request_id: authRequestId(),
        registration_key: key,
        is_response: false,
        success: false,
        station_auth: auth,
      });
    });
  }

  #onMessage(session: Session, msg: ManagementMessage): void {
    if (msg.message === 'disconnect') {
      session.end({ kind: 'disconnect', disconnect: msg.disconnect as Disconnect });
      return;
    }
    const kind = msg.message as PlatformRequestKind | undefined;
    const reply: Reply = (fields) => {
      if (this.#session !== session) return;
      session.call.write({
        request_id: msg.request_id,
        registration_key: this.#o.settings.key ?? '',
        is_response: true,
        ...fields,
      });
    };
    if (msg.is_response || kind === undefined) return;
    if (!(PLATFORM_REQUESTS as readonly string[]).includes(kind)) {
      reply({
        success: false,
        error: {
          code: 'UNKNOWN_ERROR',
          message: `Junction does not serve ${kind} yet`,
          details: '',
        },
      });
      return;
    }
    this.#synced();
    this.#o.station.handle(kind, msg[kind], reply).catch((err: unknown) => {
      const e = err instanceof ManagementRequestError ? err : undefined;
      reply({
        success: false,
        error: {
          code: e?.code ?? 'UNKNOWN_ERROR',
          message: e?.message ?? 'the request failed inside Junction; see its log',
          details: '',
        },
      });
      if (!e) {
        this.#o.logger.error('a management platform request failed', {
          request: kind,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    });
  }

  #heartbeat(session: Session): void {
    const { settings } = this.#o;
    const uptime = Math.floor((Date.now() - (this.#o.startedAt ?? new Date()).getTime()) / 1000);
    session.client.Heartbeat!(
      {
        registration_key: settings.key,
        environment: settings.environment,
        status: 'SYSTEM_STATUS_HEALTHY',
        metrics: { uptime_seconds: String(uptime), active_runs: this.#o.activeRuns?.() ?? 0 },
        timestamp: timestamp(new Date()),
      },
      { deadline: Date.now() + 10_000 },
      (err: grpc.ServiceError | null, res: { success: boolean; message: string }) => {
        if (this.#session !== session) return;
        if (err) {
          this.#o.logger.debug('management heartbeat failed', {
            error: err.details || err.message,
          });
          return;
        }
        if (!res.success) {
          // The platform no longer knows this station (it restarted, or dropped it): register again.
          session.end({
            kind: 'unregistered',
            detail: `heartbeat refused: ${res.message || 'not registered'}`,
          });
          return;
        }
        this.#synced();
      },
    );
  }
}
