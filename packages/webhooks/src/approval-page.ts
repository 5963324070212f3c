// The small HTML page of an approval URL, for a person who opens the link in a browser: one
// self-contained document (no script, no external style sheet, font or image), every value
// escaped, and headers that keep the link's token out of referrers, caches and frames.
import { createHash } from 'node:crypto';
import type { Approval } from '@junction/store';
import { MAX_APPROVAL_TEXT_CHARS } from './approval-request.js';

/** Escapes text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0; padding: 1.5rem; }
main { max-width: 40rem; margin: 0 auto; }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
.message { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1.1rem; padding: .75rem 1rem; border-left: 4px solid #888; background: rgba(127,127,127,.1); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.notice { padding: .6rem 1rem; border-radius: 4px; }
.notice.ok { background: rgba(40,160,80,.18); }
.notice.error { background: rgba(210,50,50,.18); }
label { display: block; margin: .8rem 0 .25rem; font-weight: 600; }
input, textarea { box-sizing: border-box; width: 100%; font: inherit; padding: .4rem; }
.buttons { display: flex; gap: .75rem; margin-top: 1rem; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: 4px; border: 1px solid #888; cursor: pointer; }
button.approve { background: #1f7a3d; color: #fff; }
button.reject { background: #b3261e; color: #fff; }
`;

/** The headers of every page: its one style block is allowed by hash, nothing else loads. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
});

/** A line above the approval: what a decision did, or why it was refused. */
export interface PageNotice {
  kind: 'ok' | 'error';
  text: string;
}

/** What the approval page shows. */
export interface ApprovalPageInput {
  approval: Approval;
  /** The workflow of the approval's run, when known. */
  workflow?: { key: string; name: string };
  /** Where the form's buttons post; without it, or once the approval is not pending, no form. */
  actions?: { approve: string; reject: string };
  notice?: PageNotice;
  now: Date;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body.trimEnd()}
</main>
</body>
</html>
`;
}

function noticeHtml(notice: PageNotice | undefined): string {
  if (!notice) return '';
  const role = notice.kind === 'error' ? 'alert' : 'status';
  return `<p class="notice ${notice.kind}" role="${role}">${escapeHtml(notice.text)}</p>\n`;
}

function row(term: string, value: string): string {
  return `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`;
}

/** True while the approval can still be decided: pending and not past its expiry. */
export function isOpen(approval: Approval, now: Date): boolean {
  return (
    approval.status === 'pending' &&
    (approval.expiresAt === null || approval.expiresAt.getTime() > now.getTime())
  );
}

/** The approval page: its facts, and — only while it can be decided — the approve/reject form. */
export function approvalPage(input: ApprovalPageInput): string {
  const { approval, workflow, now } = input;
  const open = isOpen(approval, now);
  const status =
    approval.status === 'pending' && !open
      ? 'expired (it can no longer be decided)'
      : approval.status === 'timed_out'
        ? 'expired (timed out)'
        : approval.status === 'cancelled'
          ? 'withdrawn (its workflow run was cancelled)'
          : approval.status;
  const rows = [
    row(
      'Workflow run',
      workflow
        ? `#${approval.workflowRunId} — ${workflow.name} (${workflow.key})`
        : `#${approval.workflowRunId}`,
    ),
    row('Step', approval.stepName),
    row('Status', status),
    row(
      'Approvers',
      approval.approvers.length > 0 ? approval.approvers.join(', ') : 'anyone with this link',
    ),
    row('Expires', approval.expiresAt ? approval.expiresAt.toISOString() : 'never'),
  ];
  if (approval.decidedAt && approval.status !== 'pending') {
    rows.push(row('Decided at', approval.decidedAt.toISOString()));
  }
  if (approval.decidedBy) rows.push(row('Decided by', approval.decidedBy));
  if (approval.comment) {
    rows.push(row(approval.status === 'rejected' ? 'Reason' : 'Comment', approval.comment));
  }
  rows.push(row('Approval id', approval.approvalId));
  const message = approval.message.trim() === '' ? '(no message)' : approval.message;
  const form = open && input.actions ? formHtml(approval, input.actions) : '';
  const body =
    `<h1>Approval requested</h1>\n` +
    noticeHtml(input.notice) +
    `<p class="message">${escapeHtml(message)}</p>\n` +
    `<dl>\n${rows.join('\n')}\n</dl>\n` +
    form;
  return page(`Approval ${approval.approvalId} — ${status}`, body);
}

function formHtml(approval: Approval, actions: { approve: string; reject: string }): string {
  const required = approval.approvers.length > 0 ? ' required' : '';
  const who =
    approval.approvers.length > 0 ? 'Your name (one of the approvers)' : 'Your name (optional)';
  // The first submit button is disabled so that Enter in a text field submits nothing: a
  // decision is always a click on Approve or Reject.
  return `<form method="post" action="${escapeHtml(actions.approve)}">
<button type="submit" disabled hidden aria-hidden="true"></button>
<label for="approver">${escapeHtml(who)}</label>
<input id="approver" name="approver" maxlength="${MAX_APPROVAL_TEXT_CHARS}" autocomplete="username"${required}>
<label for="comment">Comment or reason for rejecting (optional)</label>
<textarea id="comment" name="comment" maxlength="${MAX_APPROVAL_TEXT_CHARS}" rows="3"></textarea>
<div class="buttons">
<button type="submit" class="approve">Approve</button>
<button type="submit" class="reject" formaction="${escapeHtml(actions.reject)}">Reject</button>
</div>
</form>
`;
}

/** A page that shows only a refusal, for a request that may not see the approval (or has none to see). */
export function errorPage(status: number, message: string): string {
  const title = status === 404 ? 'Approval not found' : 'Approval link refused';
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>\n${noticeHtml({ kind: 'error', text: message })}`,
  );
}
