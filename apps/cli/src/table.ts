import { visibleText } from '@junction/config-templates';
import { CliError } from './cli-error.js';
import { tableSettings } from './table-settings.js';

/** Narrowest a cut column gets (its header stays readable). */
const MIN_CUT = 6;

/**
 * Formats rows as a left-aligned plain-text table with a header line; no cell can break a line
 * or send a terminal escape. Honours --columns (INVALID_ARGUMENT naming the columns there are)
 * and, at a terminal, cuts the widest columns with "…" until a line fits its width — unless even
 * every column cut to its floor would not fit, when nothing is cut. Columns in `whole` are never cut.
 */
export function formatTable(
  headers: string[],
  rows: Array<Array<string | number>>,
  options: { whole?: readonly string[] } = {},
): string {
  const settings = tableSettings();
  let picked = headers.map((_, i) => i);
  if (settings.columns) {
    // `last sync`, `last_sync` and `LAST-SYNC` name the same column.
    const key = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, '_');
    picked = settings.columns.map((name) => {
      const i = headers.findIndex((h) => key(h) === key(name));
      if (i < 0) {
        throw new CliError(
          'INVALID_ARGUMENT',
          `--columns: there is no column "${name}"; the columns are ${headers.map(key).join(', ')}.`,
          { argument: 'columns', value: name },
        );
      }
      return i;
    });
  }
  const cells = [headers, ...rows.map((r) => r.map((c) => visibleText(String(c))))].map((r) =>
    picked.map((i) => r[i] ?? ''),
  );
  const widths = picked.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  // A column named in `whole` (a link, a token) is never cut: cut, it is useless.
  const floors = widths.map((w, i) =>
    options.whole?.includes(cells[0]?.[i] ?? '')
      ? w
      : Math.min(w, Math.max(MIN_CUT, (cells[0]?.[i] ?? '').length)),
  );
  const sum = (ws: number[]): number => ws.reduce((a, b) => a + b, 0) + 2 * (ws.length - 1);
  // Cut only when cutting makes the lines fit: a table wider than the terminal even with every
  // column at its floor keeps its values whole (the terminal wraps) rather than losing them.
  if (settings.width !== undefined && sum(floors) <= settings.width) {
    const total = (): number => sum(widths);
    for (;;) {
      if (total() <= settings.width) break;
      let widest = -1;
      widths.forEach((w, i) => {
        if (w > (floors[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
      });
      if (widest < 0) break;
      widths[widest] = Math.max(
        floors[widest] ?? 0,
        (widths[widest] ?? 0) - (total() - settings.width),
      );
    }
  }
  const cut = (text: string, width: number): string =>
    text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
  return cells
    .map((r) =>
      r
        .map((c, i) => {
          const w = widths[i] ?? 0;
          const shown = cut(c, w);
          return i === r.length - 1 ? shown : shown.padEnd(w);
        })
        .join('  '),
    )
    .join('\n');
}
