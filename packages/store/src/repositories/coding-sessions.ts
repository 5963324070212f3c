import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { CodingSession } from '../rows.js';
import {
  CODING_SESSION_BACKENDS,
  codingSessions,
  type CodingSessionBackend,
  type CodingSessionStatus,
} from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { StoreError } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';

/** What the caller knows when it opens a coding session; the session starts `open`. */
export interface CodingSessionCreateInput {
  /** The id the model is given, e.g. `cs-1a2b3c4d5e6f`; a second create with it is a CONFLICT. */
  id: string;
  backend: CodingSessionBackend;
  /** The run that opened it. */
  runId?: number | null;
  agentId?: number | null;
  /** Kept beside agentId so the record stays readable after the agent row goes. */
  agentName?: string;
  title?: string | null;
  repoUrl?: string | null;
  branch?: string | null;
  workspaceName: string;
  workspacePath?: string | null;
}

/** What changes while a session is open; absent fields are left as they are. */
export interface CodingSessionPatch {
  workspacePath?: string | null;
  /** The coding server's own id of the session. */
  backendSessionId?: string | null;
  messageCount?: number;
  lastCommit?: string | null;
  branch?: string | null;
}

export interface CodingSessionFilter extends Page {
  status?: CodingSessionStatus;
  runId?: number;
}

/** What `close` did: the session as it now is, and whether this call is the one that closed it. */
export interface CodingSessionClose {
  session: CodingSession;
  closedNow: boolean;
}

/**
 * Coding sessions agents open on a coding server: open → closed, once. Changes apply only
 * while a session is open, and closing is one conditional UPDATE, so of two closers exactly
 * one hears it closed the session.
 */
export class CodingSessionsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Records an open session and returns it; CONFLICT if a session with this id exists,
   * INVALID_REFERENCE if runId or agentId names a row that does not.
   */
  async create(input: CodingSessionCreateInput): Promise<CodingSession> {
    checkCreate(input);
    const now = this.#ctx.now();
    return this.#ctx.write(`open coding session ${JSON.stringify(input.id)}`, async (db) => {
      const [row] = await db
        .insert(codingSessions)
        .values({
          id: input.id,
          backend: input.backend,
          status: 'open',
          runId: input.runId ?? null,
          agentId: input.agentId ?? null,
          agentName: input.agentName ?? '',
          title: input.title ?? null,
          repoUrl: input.repoUrl ?? null,
          branch: input.branch ?? null,
          workspaceName: input.workspaceName,
          workspacePath: input.workspacePath ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({ target: codingSessions.id })
        .returning();
      if (row) return row;
      throw new StoreError(
        'CONFLICT',
        `A coding session with id ${JSON.stringify(input.id)} already exists; make a new id or use the existing session.`,
        { id: input.id },
      );
    });
  }

  /** The session with this id, or undefined. */
  async get(id: string): Promise<CodingSession | undefined> {
    return this.#ctx.read('get coding session', async (db) => {
      const [row] = await db.select().from(codingSessions).where(eq(codingSessions.id, id));
      return row;
    });
  }

  /**
   * Applies `patch` to an open session and returns it; undefined when the session is unknown
   * or already closed (a closed session never changes).
   */
  async update(id: string, patch: CodingSessionPatch): Promise<CodingSession | undefined> {
    if (patch.messageCount !== undefined) checkCount(patch.messageCount);
    const now = this.#ctx.now();
    const set: Partial<typeof codingSessions.$inferInsert> = { updatedAt: now };
    if (patch.workspacePath !== undefined) set.workspacePath = patch.workspacePath;
    if (patch.backendSessionId !== undefined) set.backendSessionId = patch.backendSessionId;
    if (patch.messageCount !== undefined) set.messageCount = patch.messageCount;
    if (patch.lastCommit !== undefined) set.lastCommit = patch.lastCommit;
    if (patch.branch !== undefined) set.branch = patch.branch;
    return this.#ctx.write(`update coding session ${JSON.stringify(id)}`, async (db) => {
      const [row] = await db
        .update(codingSessions)
        .set(set)
        .where(and(eq(codingSessions.id, id), eq(codingSessions.status, 'open')))
        .returning();
      return row;
    });
  }

  /**
   * Closes an open session: `closedNow` true for the one call that closed it, false when it
   * was closed already (the session is returned as it is); undefined when it is unknown.
   */
  async close(id: string): Promise<CodingSessionClose | undefined> {
    const now = this.#ctx.now();
    return this.#ctx.write(`close coding session ${JSON.stringify(id)}`, async (db) => {
      const [closed] = await db
        .update(codingSessions)
        .set({ status: 'closed', closedAt: now, updatedAt: now })
        .where(and(eq(codingSessions.id, id), eq(codingSessions.status, 'open')))
        .returning();
      if (closed) return { session: closed, closedNow: true };
      const [current] = await db.select().from(codingSessions).where(eq(codingSessions.id, id));
      return current ? { session: current, closedNow: false } : undefined;
    });
  }

  /** Sessions matching the filter, newest first. */
  async list(filter: CodingSessionFilter = {}): Promise<CodingSession[]> {
    const { limit, offset } = resolvePage(filter);
    const where: SQL[] = [];
    if (filter.status !== undefined) where.push(eq(codingSessions.status, filter.status));
    if (filter.runId !== undefined) where.push(eq(codingSessions.runId, filter.runId));
    return this.#ctx.read('list coding sessions', (db) =>
      db
        .select()
        .from(codingSessions)
        .where(and(...where))
        // Sessions opened in the same millisecond: the later insert first.
        .orderBy(desc(codingSessions.createdAt), desc(sql`${codingSessions}.rowid`))
        .limit(limit)
        .offset(offset),
    );
  }
}

function checkCreate(input: CodingSessionCreateInput): void {
  if (typeof input.id !== 'string' || input.id.length === 0) {
    throw new StoreError('INVALID_INPUT', 'A coding session needs a non-empty id.', {
      field: 'id',
    });
  }
  if (!(CODING_SESSION_BACKENDS as readonly string[]).includes(input.backend)) {
    throw new StoreError(
      'INVALID_INPUT',
      `backend must be one of ${CODING_SESSION_BACKENDS.join(', ')}; got ${JSON.stringify(input.backend)}.`,
      { field: 'backend', value: String(input.backend) },
    );
  }
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 0) {
    throw new StoreError(
      'INVALID_INPUT',
      `messageCount must be a whole number of at least 0; got ${String(count)}.`,
      { field: 'messageCount', value: String(count) },
    );
  }
}
