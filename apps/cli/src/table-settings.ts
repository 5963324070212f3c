// How tables print in this process, set by every command's init (base-command.ts) before it
// runs. Kept apart from table.ts so that the base of every command imports nothing heavy.

/** How tables print in this process: set from --columns and --no-truncate (base-command.ts). */
export interface TableSettings {
  /** Cut to this many characters a line (a terminal's width); undefined: never cut. */
  width?: number;
  /** Only these columns, by header (case-insensitive), in this order. */
  columns?: string[];
}

let settings: TableSettings = {};

/** The settings applyTableFlags set for this process. */
export function tableSettings(): Readonly<TableSettings> {
  return settings;
}

/**
 * Reads the table flags of a command: at a terminal, lines are cut to its width unless
 * --no-truncate; in a pipe never. --columns picks columns.
 */
export function applyTableFlags(flags: Record<string, unknown>): void {
  const width =
    flags['no-truncate'] === true || process.stdout.isTTY !== true
      ? undefined
      : (process.stdout.columns ?? 0) >= 20
        ? process.stdout.columns
        : undefined;
  const columns =
    typeof flags.columns === 'string'
      ? flags.columns
          .split(',')
          .map((c) => c.trim())
          .filter((c) => c !== '')
      : undefined;
  settings = {
    ...(width !== undefined ? { width } : {}),
    ...(columns !== undefined && columns.length > 0 ? { columns } : {}),
  };
}
