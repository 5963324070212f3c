// The approval URLs of the webhook port: view an approval, approve it, reject it. Every decision
// goes through the WorkflowDoor, as REST, MCP and the CLI do; this file only admits the
// request (the webhook key, or the signed token of this one approval) and words the answer,
// as JSON or as the approval page for a browser.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { hasControlCharacter } from '@junction/config-templates';
import type { Approval, Store } from '@junction/store';
import {
  approvalView,
  decisionOutcome,
  requireApproval,
  WorkflowError,
  type WorkflowDoor,
} from '@junction/workflows';
import { approvalPage, errorPage, PAGE_HEADERS, type PageNotice } from './approval-page.js';
import { parseApprovalRequest } from './approval-request.js';
import { defineRoute, type WebhookRoute } from './define-route.js';
import { WebhookError } from './errors.js';
import { toHttpFailure } from './http-errors.js';
import { crossOriginRefusal } from './same-origin.js';
import type { WebhookContext } from './webhook-context.js';

/** Where the approval URLs live on the webhook port (as `WorkflowDoor.links` builds them). */
export const APPROVAL_ROUTE = '/workflow-approvals/:approval_id';

/**
 * Largest approve/reject body read, whatever webhook.max_body_bytes allows: two fields of
 * 2000 characters fit many times over, even %-encoded, so a bigger body is never worth reading.
 */
export const MAX_APPROVAL_BODY_BYTES = 64 * 1024;

/** How a request was let in: by the webhook key (or an open port), or by this approval's token. */
interface Admission {
  viaToken: boolean;
  /** The token it carried, passed on to the page's form. */
  token?: string;
}

type Decision = 'approved' | 'rejected';
type BodyKind = 'none' | 'json' | 'form' | 'other';

const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/;
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** Longest approval id in a path; the engine's ids (`appr-<run>-<step>`) are far shorter. */
const MAX_APPROVAL_ID_CHARS = 200;

/**
 * The handlers of the approval URLs over one webhook context: who is let in, the decision, the
 * page and the refusals.
 */
class ApprovalDesk {
  readonly #ctx: WebhookContext;
  readonly #store: Pick<Store, 'approvals'>;
  readonly #workflows: WorkflowDoor;
  readonly #now: () => Date;
  readonly #parsers: Record<'json' | 'form', RequestHandler>;

  constructor(ctx: WebhookContext) {
    const { workflows } = ctx.deps;
    if (!workflows) throw new Error('the approval routes are mounted only with a workflow door');
    this.#ctx = ctx;
    this.#store = ctx.deps.store;
    this.#workflows = workflows;
    this.#now = ctx.deps.now ?? ((): Date => new Date());
    const limit = Math.min(ctx.maxBodyBytes, MAX_APPROVAL_BODY_BYTES);
    this.#parsers = {
      json: express.json({ limit, strict: false, type: () => true }),
      form: express.urlencoded({ limit, extended: false, parameterLimit: 20, type: () => true }),
    };
  }

  /** GET of an approval (or of one of its decision links): JSON, or the page for a browser. */
  async view(req: Request, res: Response): Promise<void> {
    res.set({ Vary: 'Accept', 'Cache-Control': 'no-store' });
    const html = prefersHtml(req, false);
    let admission: Admission | undefined;
    try {
      const id = approvalIdOf(req);
      admission = await this.#admit(req, id);
      checkApprovalId(id);
      const approval = await requireApproval(this.#store, id);
      if (html) await this.#showPage(req, res, 200, approval, admission);
      else res.json({ approval: approvalView(approval) });
    } catch (err) {
      await this.#refuse(req, res, err, html, admission);
    }
  }

  /** POST …/approve or …/reject: the decision, answered as JSON or on the page. */
  async decide(decision: Decision, req: Request, res: Response): Promise<void> {
    res.set({ Vary: 'Accept', 'Cache-Control': 'no-store' });
    const kind = bodyKindOf(req);
    const html = prefersHtml(req, kind === 'form');
    let admission: Admission | undefined;
    try {
      const id = approvalIdOf(req);
      // A browser's decision must come from this server's own page (another port of
      // localhost is another site); then the key or token: an unauthenticated caller never
      // gets its body read.
      const foreign = crossOriginRefusal(req);
      if (foreign) throw foreign;
      admission = await this.#admit(req, id);
      checkApprovalId(id);
      const body = await readBody(req, res, kind, this.#parsers);
      const input = parseApprovalRequest(decision, body);
      const approval = await this.#workflows.decide(id, {
        decision,
        ...input,
        source: 'webhook',
        viaToken: admission.viaToken,
      });
      this.#ctx.logger.info('approval decided', {
        approval_id: approval.approvalId,
        workflow_run_id: approval.workflowRunId,
        status: approval.status,
        via_token: admission.viaToken,
      });
      if (!html) {
        res.json({ approval: approvalView(approval) });
        return;
      }
      const by = approval.decidedBy ? ` by ${approval.decidedBy}` : '';
      const run = await this.#workflows.get(approval.workflowRunId).catch(() => undefined);
      await this.#showPage(req, res, 200, approval, admission, {
        kind: 'ok',
        text: `${decision === 'approved' ? 'Approved' : 'Rejected'}${by}. ${decisionOutcome(approval, run)}`,
      });
    } catch (err) {
      await this.#refuse(req, res, err, html, admission);
    }
  }

  /**
   * A `?token=` admits the request for its own approval only, with or without the key; a token
   * that is not this approval's is refused even when the key would have been accepted, so a
   * wrong link never works by accident. Without a token, the webhook key rule applies.
   */
  async #admit(req: Request, approvalId: string): Promise<Admission> {
    const token = tokenOf(req);
    if (token === undefined) {
      const refusal = this.#ctx.keyRefusal(req);
      if (refusal) throw refusal;
      return { viaToken: false };
    }
    if (!(await this.#workflows.verifyToken(approvalId, token))) {
      throw new WorkflowError(
        'APPROVAL_TOKEN_INVALID',
        'The token of this link is not valid for this approval. Open the link exactly as the approval request sent it, or send the webhook API key as "Authorization: Bearer <key>" instead of a token.',
        { approval_id: approvalId.slice(0, 200) },
      );
    }
    return { viaToken: true, token };
  }

  /** The facts the page shows besides the approval: its workflow, and where its buttons post. */
  async #showPage(
    req: Request,
    res: Response,
    status: number,
    approval: Approval,
    admission: Admission,
    notice?: PageNotice,
  ): Promise<void> {
    const run = await this.#workflows.get(approval.workflowRunId).catch(() => undefined);
    const base = `${req.baseUrl}/workflow-approvals/${encodeURIComponent(approval.approvalId)}`;
    const query =
      admission.token === undefined ? '' : `?token=${encodeURIComponent(admission.token)}`;
    sendHtml(
      res,
      status,
      approvalPage({
        approval,
        ...(run ? { workflow: { key: run.workflowKey, name: run.workflowName } } : {}),
        actions: { approve: `${base}/approve${query}`, reject: `${base}/reject${query}` },
        ...(notice ? { notice } : {}),
        now: this.#now(),
      }),
    );
  }

  /**
   * Answers a refusal: JSON through the app's error handler, or — for a browser — the page with
   * the refusal on top (the approval itself only to a request that was let in). Faults (5xx)
   * always go to the error handler, which logs them.
   */
  async #refuse(
    req: Request,
    res: Response,
    err: unknown,
    html: boolean,
    admission: Admission | undefined,
  ): Promise<void> {
    const failure = toHttpFailure(err);
    if (!html || failure.status >= 500) throw err;
    res.set(failure.headers);
    const text = failure.body.error.message;
    const approval = admission
      ? await this.#store.approvals.get(approvalIdOf(req)).catch(() => undefined)
      : undefined;
    if (approval && admission) {
      await this.#showPage(req, res, failure.status, approval, admission, { kind: 'error', text });
    } else {
      sendHtml(res, failure.status, errorPage(failure.status, text));
    }
  }
}

/** A GET of an approval URL: the approval. */
const viewRoute = (path: string): WebhookRoute =>
  defineRoute({
    method: 'get',
    path,
    needs: 'workflows',
    handle(ctx) {
      const desk = new ApprovalDesk(ctx);
      return [(req, res) => desk.view(req, res)];
    },
  });

/** A POST of a decision link: the decision. */
const decideRoute = (action: 'approve' | 'reject', decision: Decision): WebhookRoute =>
  defineRoute({
    method: 'post',
    path: `${APPROVAL_ROUTE}/${action}`,
    needs: 'workflows',
    handle(ctx) {
      const desk = new ApprovalDesk(ctx);
      return [(req, res) => desk.decide(decision, req, res)];
    },
  });

/**
 * The approval URLs, served with a workflow door (whether or not /execute is enabled: an
 * approval link must work wherever it was sent). Chat clients and mail scanners fetch links
 * before anyone clicks: a GET of a decision link only shows the approval, so a person decides
 * with the page's buttons.
 */
export const APPROVAL_ROUTES: readonly WebhookRoute[] = [
  viewRoute(APPROVAL_ROUTE),
  decideRoute('approve', 'approved'),
  viewRoute(`${APPROVAL_ROUTE}/approve`),
  decideRoute('reject', 'rejected'),
  viewRoute(`${APPROVAL_ROUTE}/reject`),
];

function approvalIdOf(req: Request): string {
  return String(req.params.approval_id);
}

function checkApprovalId(id: string): void {
  if (id.length < 1 || id.length > MAX_APPROVAL_ID_CHARS || hasControlCharacter(id)) {
    throw new WebhookError(
      'INVALID_REQUEST',
      `approval_id must be 1 to ${MAX_APPROVAL_ID_CHARS} characters without control characters: use the approval URL as the approval request sent it.`,
      { field: 'approval_id' },
    );
  }
}

/** The `token` query parameter, or undefined without one. */
function tokenOf(req: Request): string | undefined {
  const token: unknown = req.query.token;
  if (token === undefined) return undefined;
  if (typeof token !== 'string') {
    throw new WebhookError(
      'INVALID_REQUEST',
      'Send the token query parameter once, exactly as the approval link carries it.',
      { field: 'token' },
    );
  }
  return token;
}

/**
 * A browser gets the page: the answer is HTML when the client's Accept prefers text/html, ties
 * going to the page for a form post and to JSON otherwise (curl sends Accept: *\/*).
 */
function prefersHtml(req: Request, formPost: boolean): boolean {
  const order = formPost ? ['text/html', 'application/json'] : ['application/json', 'text/html'];
  return req.accepts(order) === 'text/html';
}

function bodyKindOf(req: Request): BodyKind {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    return 'none';
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (JSON_TYPE.test(type)) return 'json';
  if (type === FORM_TYPE) return 'form';
  return 'other';
}

/** The parsed body (undefined without one); 415 for a type that is neither JSON nor a form. */
async function readBody(
  req: Request,
  res: Response,
  kind: BodyKind,
  parsers: Record<'json' | 'form', RequestHandler>,
): Promise<unknown> {
  if (kind === 'none') return undefined;
  if (kind === 'other') {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    throw new WebhookError(
      'UNSUPPORTED_MEDIA_TYPE',
      `${type === '' ? 'Content-Type is missing' : `Content-Type ${JSON.stringify(type)} is not accepted`}: send the body as JSON ("Content-Type: application/json") or as a form (${FORM_TYPE}), or send no body.`,
      { content_type: type },
    );
  }
  const parse = parsers[kind];
  await new Promise<void>((resolve, reject) => {
    void parse(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
  return req.body as unknown;
}

function sendHtml(res: Response, status: number, html: string): void {
  res.status(status).set(PAGE_HEADERS).type('html').send(html);
}
