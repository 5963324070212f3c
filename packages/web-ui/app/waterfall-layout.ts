// The trace waterfall's geometry: spans in tree order (children under their parent, siblings
// by start time), each with its depth and a bar placed on the trace's time axis. Pure, so it
// is tested in Node; waterfall.ts turns the rows into DOM.
import { barOnAxis } from './timeline.js';

/** What the layout reads of a span (the API's span has more). */
export interface SpanTiming {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  /** Start in microseconds since the epoch. */
  start_us: number;
  duration_ms: number;
}

export interface WaterfallRow<S extends SpanTiming> {
  span: S;
  /** 0 for a root (or a span whose parent is not in the trace). */
  depth: number;
  /** Start relative to the trace start, in milliseconds. */
  startOffsetMs: number;
  /** Bar start, percent of the trace duration. */
  offsetPct: number;
  /** Bar width, percent of the trace duration. */
  widthPct: number;
  childCount: number;
}

export interface WaterfallLayout<S extends SpanTiming> {
  rows: Array<WaterfallRow<S>>;
  /** Earliest span start, microseconds since the epoch. */
  startUs: number;
  /** From the earliest start to the latest end, in milliseconds. */
  durationMs: number;
}

const bySpanStart = (a: SpanTiming, b: SpanTiming): number =>
  a.start_us - b.start_us || a.name.localeCompare(b.name) || a.span_id.localeCompare(b.span_id);

/** Lays out one trace's spans; spans whose parents are missing or form a cycle become roots. */
export function layoutWaterfall<S extends SpanTiming>(spans: readonly S[]): WaterfallLayout<S> {
  if (spans.length === 0) return { rows: [], startUs: 0, durationMs: 0 };
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map<string, S[]>();
  const roots: S[] = [];
  for (const span of spans) {
    const parent = span.parent_span_id;
    if (parent !== null && parent !== span.span_id && ids.has(parent)) {
      const list = children.get(parent) ?? [];
      list.push(span);
      children.set(parent, list);
    } else {
      roots.push(span);
    }
  }
  for (const list of children.values()) list.sort(bySpanStart);
  roots.sort(bySpanStart);

  // A loop, not Math.min(...spans): a large trace would overflow the argument list.
  let startUs = Infinity;
  let endUs = -Infinity;
  for (const s of spans) {
    startUs = Math.min(startUs, s.start_us);
    endUs = Math.max(endUs, s.start_us + s.duration_ms * 1000);
  }
  const lengthUs = endUs - startUs;

  const rows: Array<WaterfallRow<S>> = [];
  const placed = new Set<string>();
  const visit = (root: S): void => {
    // Depth-first with an explicit stack: deep traces must not overflow the call stack.
    const stack: Array<{ span: S; depth: number }> = [{ span: root, depth: 0 }];
    while (stack.length > 0) {
      const { span, depth } = stack.pop() as { span: S; depth: number };
      if (placed.has(span.span_id)) continue;
      placed.add(span.span_id);
      const kids = children.get(span.span_id) ?? [];
      rows.push({
        span,
        depth,
        startOffsetMs: (span.start_us - startUs) / 1000,
        ...barOnAxis(span.start_us, span.duration_ms * 1000, startUs, lengthUs),
        childCount: kids.length,
      });
      for (let i = kids.length - 1; i >= 0; i -= 1) {
        stack.push({ span: kids[i] as S, depth: depth + 1 });
      }
    }
  };
  for (const root of roots) visit(root);
  // Spans only reachable through a parent cycle have no root: show them rather than lose them.
  for (const span of [...spans].sort(bySpanStart)) if (!placed.has(span.span_id)) visit(span);

  return { rows, startUs, durationMs: lengthUs / 1000 };
}
