// The waterfall's geometry and the step timeline: tree order, depth, and bars placed by start
// offset and sized by duration relative to the whole trace.
import { describe, expect, it } from '@jest/globals';
import { barOnAxis, layoutTimeline, ticks } from '../app/timeline.js';
import { layoutWaterfall, type SpanTiming } from '../app/waterfall-layout.js';

const T0 = 1_700_000_000_000_000; // microseconds

function span(id: string, parent: string | null, startMs: number, durationMs: number): SpanTiming {
  return {
    span_id: id,
    parent_span_id: parent,
    name: id,
    start_us: T0 + startMs * 1000,
    duration_ms: durationMs,
  };
}

describe('layoutWaterfall', () => {
  it('puts children under their parent, siblings by start time, with depths', () => {
    const spans = [
      span('tool', 'root', 60, 30),
      span('http', 'tool', 65, 20),
      span('llm-2', 'root', 90, 10),
      span('root', null, 0, 100),
      span('llm-1', 'root', 5, 50),
    ];
    const { rows, durationMs, startUs } = layoutWaterfall(spans);
    expect(rows.map((r) => [r.span.span_id, r.depth])).toEqual([
      ['root', 0],
      ['llm-1', 1],
      ['tool', 1],
      ['http', 2],
      ['llm-2', 1],
    ]);
    expect(durationMs).toBe(100);
    expect(startUs).toBe(T0);
    expect(rows.find((r) => r.span.span_id === 'root')?.childCount).toBe(3);
  });

  it('places each bar by its offset and sizes it by its duration, in percent of the trace', () => {
    const { rows } = layoutWaterfall([span('root', null, 0, 200), span('child', 'root', 50, 100)]);
    expect(rows[0]).toMatchObject({ offsetPct: 0, widthPct: 100, startOffsetMs: 0 });
    expect(rows[1]).toMatchObject({ offsetPct: 25, widthPct: 50, startOffsetMs: 50 });
  });

  it('measures the trace from the earliest start to the latest end, whichever span that is', () => {
    const { rows, durationMs } = layoutWaterfall([
      span('root', null, 10, 20),
      span('late', 'root', 20, 30), // ends at 50, after its parent
    ]);
    expect(durationMs).toBe(40);
    expect(rows[1]).toMatchObject({ offsetPct: 25, widthPct: 75 });
  });

  it('shows spans whose parent is missing as roots, and survives a parent cycle', () => {
    const { rows } = layoutWaterfall([
      span('orphan', 'not-in-trace', 0, 10),
      span('a', 'b', 1, 1),
      span('b', 'a', 2, 1),
      span('self', 'self', 3, 1),
    ]);
    expect(rows.map((r) => [r.span.span_id, r.depth])).toEqual([
      ['orphan', 0],
      ['self', 0],
      ['a', 0],
      ['b', 1],
    ]);
  });

  it('gives a zero-length trace full-width bars and an empty trace no rows', () => {
    expect(layoutWaterfall([span('x', null, 0, 0)]).rows[0]).toMatchObject({
      offsetPct: 0,
      widthPct: 100,
    });
    expect(layoutWaterfall([])).toEqual({ rows: [], startUs: 0, durationMs: 0 });
  });

  it('keeps deep traces in order without recursion limits', () => {
    const spans = Array.from({ length: 5000 }, (_, i) =>
      span(`s${i}`, i === 0 ? null : `s${i - 1}`, i, 1),
    );
    const { rows } = layoutWaterfall(spans);
    expect(rows[4999]).toMatchObject({ depth: 4999 });
  });
});

describe('timeline bars', () => {
  it('clamps bars to the axis', () => {
    expect(barOnAxis(-10, 20, 0, 100)).toEqual({ offsetPct: 0, widthPct: 20 });
    expect(barOnAxis(90, 50, 0, 100)).toEqual({ offsetPct: 90, widthPct: 10 });
  });

  it('lays out steps from the first start; a running step ends now, a pending one has no bar', () => {
    const { bars, axisLength } = layoutTimeline(
      [
        { start: 1000, end: 2000 },
        { start: 2000, end: null },
        { start: null, end: null },
      ],
      5000,
    );
    expect(axisLength).toBe(4000);
    expect(bars).toEqual([{ offsetPct: 0, widthPct: 25 }, { offsetPct: 25, widthPct: 75 }, null]);
  });

  it('spaces tick labels evenly', () => {
    expect(ticks(200)).toEqual([
      { pct: 0, value: 0 },
      { pct: 25, value: 50 },
      { pct: 50, value: 100 },
      { pct: 75, value: 150 },
      { pct: 100, value: 200 },
    ]);
  });
});
