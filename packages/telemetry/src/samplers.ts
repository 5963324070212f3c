import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { TelemetryError } from './errors.js';

/** The `OTEL_TRACES_SAMPLER` values Junction understands. */
export const SAMPLER_NAMES = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** One of SAMPLER_NAMES. */
export type SamplerName = (typeof SAMPLER_NAMES)[number];

/** The sampler used when none is configured (the OpenTelemetry default). */
export const DEFAULT_SAMPLER: SamplerName = 'parentbased_always_on';

function isSamplerName(name: string): name is SamplerName {
  return (SAMPLER_NAMES as readonly string[]).includes(name);
}

/** Parses an `OTEL_TRACES_SAMPLER_ARG` ratio; absent means 1 (sample everything), anything outside 0..1 is an error. */
export function parseSamplerRatio(arg: number | string | undefined): number {
  if (arg === undefined || (typeof arg === 'string' && arg.trim() === '')) return 1;
  const ratio = typeof arg === 'number' ? arg : Number(arg.trim());
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new TelemetryError(
      'TELEMETRY_INVALID_SAMPLER_ARG',
      `The trace sampler ratio (OTEL_TRACES_SAMPLER_ARG) must be a number from 0 to 1, such as 0.25; got "${String(arg)}".`,
      { arg: String(arg) },
    );
  }
  return ratio;
}

/** Builds the sampler named like `OTEL_TRACES_SAMPLER` (default parentbased_always_on); `arg` is the ratio for the *traceidratio samplers. */
export function createSampler(name: string = DEFAULT_SAMPLER, arg?: number | string): Sampler {
  const normalized = name.trim().toLowerCase();
  if (!isSamplerName(normalized)) {
    throw new TelemetryError(
      'TELEMETRY_INVALID_SAMPLER',
      `Unknown trace sampler "${name}" (OTEL_TRACES_SAMPLER); use one of ${SAMPLER_NAMES.join(', ')}.`,
      { sampler: name, supported: [...SAMPLER_NAMES] },
    );
  }
  switch (normalized) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(parseSamplerRatio(arg));
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(parseSamplerRatio(arg)) });
  }
}
