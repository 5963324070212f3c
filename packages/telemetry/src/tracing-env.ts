import { TelemetryError } from './errors.js';
import type { TracingOptions } from './tracing.js';

/** Parses `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,key2=value2`, values percent-encoded). */
export function parseOtlpHeaders(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair.trim() : pair.slice(0, eq).trim();
    if (eq < 0 || name === '') {
      // Only the name is shown: the value may be a credential.
      throw new TelemetryError(
        'TELEMETRY_INVALID_HEADERS',
        `OTEL_EXPORTER_OTLP_HEADERS has an entry without "name=value" (${eq < 0 ? `"${name}"` : 'empty name'}); write it as name=value, separated by commas.`,
        { header: name },
      );
    }
    const value = pair.slice(eq + 1).trim();
    try {
      headers[name] = decodeURIComponent(value);
    } catch (cause) {
      throw new TelemetryError(
        'TELEMETRY_INVALID_HEADERS',
        `OTEL_EXPORTER_OTLP_HEADERS: the value of "${name}" is not valid percent-encoding; encode a literal % as %25.`,
        { header: name },
        { cause: cause },
      );
    }
  }
  return headers;
}

/**
 * The TracingOptions set by the standard OpenTelemetry variables (`OTEL_SERVICE_NAME`,
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, `_HEADERS`, `_CERTIFICATE`, `OTEL_TRACES_SAMPLER`, `_ARG`,
 * `OTEL_TRACES_EXPORTER=none`, `OTEL_SDK_DISABLED=true`). Unset variables leave their key out, so
 * `{ ...fromConfig, ...tracingOptionsFromEnv(process.env) }` lets the environment win.
 */
export function tracingOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): TracingOptions {
  const get = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const options: TracingOptions = {};
  const serviceName = get('OTEL_SERVICE_NAME');
  if (serviceName !== undefined) options.serviceName = serviceName;
  const endpoint = get('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint !== undefined) options.endpoint = endpoint;
  const headers = get('OTEL_EXPORTER_OTLP_HEADERS');
  if (headers !== undefined) options.headers = parseOtlpHeaders(headers);
  const certificate = get('OTEL_EXPORTER_OTLP_CERTIFICATE');
  if (certificate !== undefined) options.certificatePath = certificate;
  const sampler = get('OTEL_TRACES_SAMPLER');
  if (sampler !== undefined) options.sampler = sampler;
  const samplerArg = get('OTEL_TRACES_SAMPLER_ARG');
  if (samplerArg !== undefined) options.samplerArg = samplerArg;
  if (
    get('OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none' ||
    get('OTEL_SDK_DISABLED')?.toLowerCase() === 'true'
  ) {
    options.exporter = 'none';
  }
  return options;
}
