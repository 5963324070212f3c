import { sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { releaseConnection, type Connection } from './connection.js';
import { runDirectFirst, runDirectSelect, type DirectSelect } from './direct-select.js';
import { Deadline } from './deadline.js';
import { runMigrations } from './migrations.js';
import { AgentsRepository } from './repositories/agents.js';
import { ApprovalsRepository } from './repositories/approvals.js';
import { AuditLogRepository } from './repositories/audit-log.js';
import { CodingSessionsRepository } from './repositories/coding-sessions.js';
import { EnvironmentsRepository } from './repositories/environments.js';
import { McpConfigsRepository } from './repositories/mcp-configs.js';
import { McpServersRepository } from './repositories/mcp-servers.js';
import { NotificationLogsRepository } from './repositories/notification-logs.js';
import { RunEventsRepository } from './repositories/run-events.js';
import { RunStatsRepository } from './repositories/run-stats.js';
import { RunsRepository } from './repositories/runs.js';
import { SchedulesRepository } from './repositories/schedules.js';
import { LeasesRepository } from './repositories/leases.js';
import { SettingsRepository } from './repositories/settings.js';
import { SpansRepository } from './repositories/spans.js';
import { ToolsRepository } from './repositories/tools.js';
import { WorkflowRunsRepository } from './repositories/workflow-runs.js';
import { WorkflowStepsRepository } from './repositories/workflow-steps.js';
import { WorkflowsRepository } from './repositories/workflows.js';
import type { StoreContext } from './store-context.js';
import { StoreError, toStoreError } from './store-error.js';
import type { StoreLocation } from './store-location.js';

/** An open store: one repository per resource plus health helpers. Get one from openStore(). */
export class Store {
  readonly location: StoreLocation;
  readonly environments: EnvironmentsRepository;
  readonly mcpConfigs: McpConfigsRepository;
  readonly mcpServers: McpServersRepository;
  readonly tools: ToolsRepository;
  readonly agents: AgentsRepository;
  readonly runs: RunsRepository;
  readonly runEvents: RunEventsRepository;
  readonly runStats: RunStatsRepository;
  readonly workflows: WorkflowsRepository;
  readonly workflowRuns: WorkflowRunsRepository;
  readonly workflowSteps: WorkflowStepsRepository;
  readonly approvals: ApprovalsRepository;
  readonly schedules: SchedulesRepository;
  readonly leases: LeasesRepository;
  readonly notificationLogs: NotificationLogsRepository;
  readonly auditLog: AuditLogRepository;
  readonly settings: SettingsRepository;
  readonly codingSessions: CodingSessionsRepository;
  readonly spans: SpansRepository;

  readonly #conn: Connection;
  #closed = false;
  /** The one close in progress: a second close() waits for it instead of releasing twice. */
  #closing: Promise<void> | undefined;

  /** How long a call may wait for a database server (undefined: a local file, no deadline). */
  readonly #timeoutMs: number | undefined;

  /** @internal Use openStore(); the constructor takes an already migrated connection. */
  constructor(conn: Connection, now: () => Date, timeoutMs?: number) {
    this.#conn = conn;
    this.#timeoutMs = conn.location.kind === 'remote' ? timeoutMs : undefined;
    this.location = conn.location;
    const ctx: StoreContext = {
      now,
      read: async <T>(operation: string, task: (db: LibSQLDatabase) => Promise<T>): Promise<T> => {
        try {
          const db = this.#db(operation);
          return await this.#bounded(operation, () => task(db));
        } catch (err) {
          throw toStoreError(err, operation);
        }
      },
      rows: conn.rows,
      select: async <Row>(
        operation: string,
        select: (db: LibSQLDatabase) => DirectSelect<Row>,
        values: Record<string, unknown>,
      ): Promise<Row[]> => {
        try {
          const query = select(this.#db(operation));
          return await this.#bounded(operation, () => runDirectSelect(conn.rows, query, values));
        } catch (err) {
          throw toStoreError(err, operation);
        }
      },
      selectFirst: async <Row>(
        operation: string,
        select: (db: LibSQLDatabase) => DirectSelect<Row>,
        values: Record<string, unknown>,
      ): Promise<Row | undefined> => {
        try {
          const query = select(this.#db(operation));
          return await this.#bounded(operation, () => runDirectFirst(conn.rows, query, values));
        } catch (err) {
          throw toStoreError(err, operation);
        }
      },
      write: async <T>(operation: string, task: (db: LibSQLDatabase) => Promise<T>): Promise<T> => {
        const db = this.#db(operation);
        try {
          return await this.#queued(operation, () => task(db));
        } catch (err) {
          throw toStoreError(err, operation);
        }
      },
    };
    this.environments = new EnvironmentsRepository(ctx);
    this.mcpConfigs = new McpConfigsRepository(ctx);
    this.mcpServers = new McpServersRepository(ctx);
    this.tools = new ToolsRepository(ctx);
    this.agents = new AgentsRepository(ctx);
    this.runs = new RunsRepository(ctx);
    this.runEvents = new RunEventsRepository(ctx);
    this.runStats = new RunStatsRepository(ctx);
    this.workflows = new WorkflowsRepository(ctx);
    this.workflowRuns = new WorkflowRunsRepository(ctx);
    this.workflowSteps = new WorkflowStepsRepository(ctx);
    this.approvals = new ApprovalsRepository(ctx);
    this.schedules = new SchedulesRepository(ctx);
    this.leases = new LeasesRepository(ctx);
    this.notificationLogs = new NotificationLogsRepository(ctx);
    this.auditLog = new AuditLogRepository(ctx);
    this.settings = new SettingsRepository(ctx);
    this.codingSessions = new CodingSessionsRepository(ctx);
    this.spans = new SpansRepository(ctx);
  }

  /** True once close() has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `PRAGMA integrity_check`; returns `ok` for a healthy database, else the problems found. */
  async integrityCheck(): Promise<string> {
    const result = await this.#raw('check database integrity', (db) =>
      db.all<Record<string, unknown>>(sql`PRAGMA integrity_check`),
    );
    return result.map((row) => String(Object.values(row)[0])).join('\n');
  }

  /** Size of the database in bytes (page_count × page_size), for the `database_size_bytes` gauge. */
  async sizeBytes(): Promise<number> {
    const [count] = await this.#raw('read page count', (db) =>
      db.all<{ page_count: number }>(sql`PRAGMA page_count`),
    );
    const [size] = await this.#raw('read page size', (db) =>
      db.all<{ page_size: number }>(sql`PRAGMA page_size`),
    );
    return Number(count?.page_count ?? 0) * Number(size?.page_size ?? 0);
  }

  /** Resolves when the database answers a trivial query; throws a StoreError otherwise. */
  async ping(): Promise<void> {
    await this.#raw('ping the database', (db) => db.all(sql`SELECT 1`));
  }

  /** Applies any pending migrations; opening already does this, and a second call is a no-op. */
  async migrate(): Promise<void> {
    const db = this.#db('migrate');
    await this.#conn.queue.run(() => runMigrations(db));
  }

  /** Waits for queued writes, then releases the connection (closed when its last Store closes). */
  close(): Promise<void> {
    this.#closing ??= (async (): Promise<void> => {
      // Runs and audit entries waiting for their group insert are written while it is open.
      await this.runs.settle();
      await this.auditLog.flush();
      this.#closed = true;
      await releaseConnection(this.#conn);
    })();
    return this.#closing;
  }

  /** Runs a read under the deadline (a database server only): STORE_UNAVAILABLE when late. */
  #bounded<T>(operation: string, work: () => Promise<T>): Promise<T> {
    if (this.#timeoutMs === undefined) return work();
    return new Deadline(operation, this.#timeoutMs).run(work);
  }

  /**
   * Runs a write through the write queue under the deadline, counted from now: a write that
   * waited past it behind a stuck one is not sent, and the queue moves on from a stuck one.
   */
  #queued<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const queue = this.#conn.queue;
    if (this.#timeoutMs === undefined) return queue.run(work);
    const deadline = new Deadline(operation, this.#timeoutMs);
    return deadline.race(queue.run(() => deadline.run(work)));
  }

  async #raw<T>(operation: string, task: (db: LibSQLDatabase) => Promise<T>): Promise<T> {
    try {
      const db = this.#db(operation);
      return await this.#bounded(operation, () => task(db));
    } catch (err) {
      throw toStoreError(err, operation);
    }
  }

  #db(operation: string): LibSQLDatabase {
    if (this.#closed) {
      throw new StoreError(
        'STORE_CLOSED',
        `Cannot ${operation}: this store was closed. Open it again with openStore().`,
        { operation },
      );
    }
    return this.#conn.db;
  }
}
