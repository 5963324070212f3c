import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** `column` contains `text` (ASCII case-insensitive), with LIKE wildcards in `text` taken literally. */
export function containsText(column: SQLWrapper, text: string): SQL {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`${column} LIKE ${pattern} ESCAPE '\\'`;
}
