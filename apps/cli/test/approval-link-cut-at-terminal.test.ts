// The `workflow approvals` table's LINK column was the widest, so at a narrow terminal it was
// the first cut — the link, token and all, ended in "…" and could not be used (issue 31 review).
// A column named whole is never cut; the others give way, and a pipe never cuts anything.
import { afterEach, describe, expect, it } from '@jest/globals';
import { formatTable } from '../src/table.js';
import { applyTableFlags } from '../src/table-settings.js';

const LINK = 'http://127.0.0.1:8587/workflow-approvals/appr_1?token=0123456789abcdef0123456789';
const headers = ['APPROVAL', 'RUN', 'STEP', 'MESSAGE', 'LINK'];
const rows = [['appr_1', 7, 'ask', 'Ship the release to production now?', LINK]];

/** Formats the rows as at a terminal `columns` wide. */
function atTerminal(columns: number, whole?: string[]): string[] {
  const tty = process.stdout.isTTY;
  const width = process.stdout.columns;
  Object.assign(process.stdout, { isTTY: true, columns });
  try {
    applyTableFlags({});
    return formatTable(headers, rows, whole ? { whole } : {}).split('\n');
  } finally {
    Object.assign(process.stdout, { isTTY: tty, columns: width });
  }
}

afterEach(() => applyTableFlags({}));

describe('a column kept whole', () => {
  it('is never cut at a narrow terminal; the other columns give way', () => {
    const [header, row] = atTerminal(120, ['LINK']);
    expect(row).toContain(LINK);
    expect(row).toContain('…');
    expect(header!.length).toBeLessThanOrEqual(120);
    expect(row!.length).toBeLessThanOrEqual(120);
  });

  it('without it, the widest column — the link — is the one cut', () => {
    const [, row] = atTerminal(120);
    expect(row).not.toContain(LINK);
  });
});
