// Bars on a time axis, as percentages of the axis: shared by the trace waterfall and the
// step timeline of a workflow run. Pure, so it is tested in Node.

export interface Bar {
  /** Where the bar starts, 0–100. */
  offsetPct: number;
  /** How wide it is, 0–(100 − offset). */
  widthPct: number;
}

const clamp = (value: number, low: number, high: number): number =>
  Math.min(high, Math.max(low, value));

/**
 * The bar of an interval [start, start + length] on the axis [axisStart, axisStart + axisLength]
 * (any unit). A zero-length axis gives a full-width bar.
 */
export function barOnAxis(
  start: number,
  length: number,
  axisStart: number,
  axisLength: number,
): Bar {
  if (!(axisLength > 0)) return { offsetPct: 0, widthPct: 100 };
  const offsetPct = clamp(((start - axisStart) / axisLength) * 100, 0, 100);
  const widthPct = clamp((Math.max(0, length) / axisLength) * 100, 0, 100 - offsetPct);
  return { offsetPct, widthPct };
}

/** Something that may have started and may have ended (milliseconds since the epoch). */
export interface Interval {
  start: number | null;
  end: number | null;
}

/**
 * Bars of intervals on one axis from the earliest start to the latest end; an interval
 * still going ends `now`, one not started has no bar (null).
 */
export function layoutTimeline(
  items: readonly Interval[],
  now: number,
): { bars: Array<Bar | null>; axisStart: number; axisLength: number } {
  const started = items.filter((i): i is { start: number; end: number | null } => i.start !== null);
  if (started.length === 0) return { bars: items.map(() => null), axisStart: now, axisLength: 0 };
  const axisStart = Math.min(...started.map((i) => i.start));
  const axisEnd = Math.max(...started.map((i) => Math.max(i.start, i.end ?? now)));
  const axisLength = axisEnd - axisStart;
  const bars = items.map((i) =>
    i.start === null
      ? null
      : barOnAxis(i.start, Math.max(i.start, i.end ?? now) - i.start, axisStart, axisLength),
  );
  return { bars, axisStart, axisLength };
}

/** `count + 1` evenly spaced tick values from 0 to `length`, for an axis' labels. */
export function ticks(length: number, count = 4): Array<{ pct: number; value: number }> {
  return Array.from({ length: count + 1 }, (_, i) => ({
    pct: (i / count) * 100,
    value: (length * i) / count,
  }));
}
