import { Buffer } from 'node:buffer';
import type { Client, InValue } from '@libsql/client';
import { wellFormedText } from './well-formed-text.js';

/**
 * Repairs text that is not UTF-8, left on disk by versions before every argument was made
 * well-formed (see well-formed-text.ts). The libSQL driver cannot read such a value: a local
 * file aborts the whole process (a Rust panic, exit 134) and a server answers HTTP 500, on
 * every read of the row, so no request could ever answer with an error instead. Such values,
 * and JSON text holding an escape of a lone surrogate (which SQL's JSON functions would turn
 * into such bytes), are rewritten once as a write of the same text gives now (U+FFFD), and
 * a flag in the database header (`PRAGMA user_version`, which nothing else uses) records that
 * the store was checked, so the scan runs once per store, not at every open.
 */

/** The bit of `user_version` that says the check ran. */
const TEXT_CHECKED = 1;

/** One value that was rewritten. */
export interface RepairedValue {
  table: string;
  column: string;
  rowid: number;
}

const strict = new TextDecoder('utf-8', { fatal: true });

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * `bytes` as text: each surrogate SQLite encoded (ED A0–BF 80–BF) as one U+FFFD, as the write
 * of a lone surrogate gives now, and any other byte that is not UTF-8 as U+FFFD too.
 */
function repairedText(bytes: Uint8Array): string {
  const copy = Buffer.from(bytes);
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i + 2 < copy.length; i++) {
    const isSurrogate =
      copy[i] === 0xed && (copy[i + 1]! & 0xe0) === 0xa0 && (copy[i + 2]! & 0xc0) === 0x80;
    if (!isSurrogate) continue;
    parts.push(copy.subarray(from, i), REPLACEMENT);
    from = i + 3;
    i += 2;
  }
  parts.push(copy.subarray(from));
  return Buffer.concat(parts).toString('utf8');
}

const REPLACEMENT = Buffer.from('\ufffd', 'utf8');

/** True when `bytes` are not UTF-8. */
function notUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return false;
  } catch {
    return true;
  }
}

async function tablesOf(client: Client): Promise<string[]> {
  const result = await client.execute(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
  );
  return result.rows.map((row) => String(row[0]));
}

async function columnsOf(client: Client, table: string): Promise<string[]> {
  const result = await client.execute(`SELECT name FROM pragma_table_info(?)`, [table]);
  return result.rows.map((row) => String(row[0]));
}

/**
 * The text values of `table` that are not UTF-8, or that are JSON holding an escape of a lone
 * surrogate (which SQL's JSON functions would decode into such bytes), with the text each is
 * rewritten as. SQLite writes text that is not UTF-8 only where it decodes such an escape (JSON,
 * char()), as the bytes ED A0–BF: only rows holding a byte ED or the text `\u` are looked at, in
 * one scan of the table.
 */
async function badValuesOf(
  client: Client,
  table: string,
): Promise<Array<RepairedValue & { text: string }>> {
  const columns = await columnsOf(client, table);
  if (columns.length === 0) return [];
  const asBytes = columns.map(
    (c) => `CASE WHEN typeof(${quoted(c)}) = 'text' THEN CAST(${quoted(c)} AS BLOB) END`,
  );
  const suspect = columns.map(
    (c) =>
      `(typeof(${quoted(c)}) = 'text' AND (instr(CAST(${quoted(c)} AS BLOB), X'ED') > 0 OR instr(${quoted(c)}, '\\u') > 0))`,
  );
  const result = await client.execute(
    `SELECT rowid, ${asBytes.join(', ')} FROM ${quoted(table)} WHERE ${suspect.join(' OR ')}`,
  );
  const bad: Array<RepairedValue & { text: string }> = [];
  for (const row of result.rows) {
    columns.forEach((column, i) => {
      const value = row[i + 1];
      if (!(value instanceof ArrayBuffer)) return;
      const bytes = new Uint8Array(value);
      const broken = notUtf8(bytes);
      const text = broken ? repairedText(bytes) : Buffer.from(bytes).toString('utf8');
      const repaired = wellFormedText(text);
      if (broken || repaired !== text) {
        bad.push({ table, column, rowid: Number(row[0]), text: repaired });
      }
    });
  }
  return bad;
}

/** Rewrites every text value of the store that is not UTF-8, once per store; answers what it rewrote. */
export async function repairInvalidText(client: Client): Promise<RepairedValue[]> {
  const version = Number((await client.execute('PRAGMA user_version')).rows[0]?.[0] ?? 0);
  if ((version & TEXT_CHECKED) !== 0) return [];
  const repaired: RepairedValue[] = [];
  for (const table of await tablesOf(client)) {
    for (const { text, ...where } of await badValuesOf(client, table)) {
      await client.execute(
        `UPDATE ${quoted(where.table)} SET ${quoted(where.column)} = ? WHERE rowid = ?`,
        [text, where.rowid] as InValue[],
      );
      repaired.push(where);
    }
  }
  await client.execute(`PRAGMA user_version = ${version | TEXT_CHECKED}`);
  return repaired;
}
