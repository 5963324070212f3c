// Runs print as agent-core's runView (the same shape REST answers); events get a one-line summary.
import type { RunEvent } from '@junction/store';
import { summarizeEvent } from '@junction/agent-core/views';
export { oneLine, runView, summarizeEvent } from '@junction/agent-core/views';
export type { RunView } from '@junction/agent-core/views';

/** One run event as the CLI prints it; `payload` only when asked for (`--verbose`). */
export interface RunEventView {
  seq: number;
  type: string;
  duration_ms: number | null;
  created_at: string;
  summary: string;
  payload?: unknown;
}

/** Shapes an event for output, with its one-line summary. */
export function runEventView(event: RunEvent, verbose: boolean): RunEventView {
  const view: RunEventView = {
    seq: event.seq,
    type: event.type,
    duration_ms: event.durationMs,
    created_at: event.createdAt.toISOString(),
    summary: summarizeEvent(event.type, event.payload),
  };
  if (verbose) view.payload = event.payload ?? null;
  return view;
}

type Fields = Record<string, unknown>;

/** The payload of an event, key by key, for `--verbose`: strings as text, the rest as indented JSON. */
export function payloadLines(payload: unknown): string[] {
  if (payload === null || payload === undefined) return [];
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    return JSON.stringify(payload, null, 2).split('\n');
  }
  const lines: string[] = [];
  for (const [key, value] of Object.entries(payload as Fields)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    const [first = '', ...rest] = (text ?? 'null').split('\n');
    lines.push(`${key}: ${first}`, ...rest.map((l) => `  ${l}`));
  }
  return lines;
}
