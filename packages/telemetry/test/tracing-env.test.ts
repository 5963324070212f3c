import { describe, expect, it } from '@jest/globals';
import { resolveTracesUrl, tracingOptionsFromEnv } from '../src/index.js';
import { parseOtlpHeaders } from '../src/tracing-env.js';

describe('resolveTracesUrl', () => {
  it.each([
    ['http://localhost:4318', 'http://localhost:4318/v1/traces'],
    ['http://localhost:4318/', 'http://localhost:4318/v1/traces'],
    ['https://otel.example.com/otlp', 'https://otel.example.com/otlp/v1/traces'],
    ['http://collector:4318/v1/traces', 'http://collector:4318/v1/traces'],
    ['http://collector:4318/v1/traces/', 'http://collector:4318/v1/traces'],
  ])('%s → %s', (endpoint, url) => {
    expect(resolveTracesUrl(endpoint)).toBe(url);
  });

  it.each(['not a url', 'localhost:4318', 'grpc://collector:4317'])('rejects %p', (endpoint) => {
    expect(() => resolveTracesUrl(endpoint)).toThrow(
      expect.objectContaining({ code: 'TELEMETRY_INVALID_ENDPOINT' }),
    );
  });

  it('does not echo credentials of a bad endpoint', () => {
    expect(() => resolveTracesUrl('ftp://user:hunter2@host')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

describe('parseOtlpHeaders', () => {
  it('parses comma-separated, percent-encoded pairs', () => {
    expect(parseOtlpHeaders('Authorization=Bearer%20abc=,x-tenant = t1 ,')).toEqual({
      Authorization: 'Bearer abc=',
      'x-tenant': 't1',
    });
  });

  it('rejects an entry without "=" and names it, not the values', () => {
    expect(() => parseOtlpHeaders('Authorization=Bearer%20secret,broken')).toThrow(
      expect.objectContaining({
        code: 'TELEMETRY_INVALID_HEADERS',
        message: expect.stringContaining('"broken"'),
      }),
    );
    expect(() => parseOtlpHeaders('api-key=%E0%A4%A')).toThrow(
      expect.objectContaining({
        code: 'TELEMETRY_INVALID_HEADERS',
        message: expect.not.stringContaining('%E0'),
      }),
    );
  });
});

describe('tracingOptionsFromEnv', () => {
  it('maps the OpenTelemetry variables', () => {
    expect(
      tracingOptionsFromEnv({
        OTEL_SERVICE_NAME: 'station-a',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20t',
        OTEL_EXPORTER_OTLP_CERTIFICATE: '/etc/ca.pem',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toEqual({
      serviceName: 'station-a',
      endpoint: 'http://collector:4318',
      headers: { Authorization: 'Bearer t' },
      certificatePath: '/etc/ca.pem',
      sampler: 'parentbased_traceidratio',
      samplerArg: '0.25',
    });
  });

  it('leaves unset and empty variables out so config values survive a spread', () => {
    const fromEnv = tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', PATH: '/bin' });
    expect(fromEnv).toEqual({});
    expect({ endpoint: 'http://from-config:4318', ...fromEnv }.endpoint).toBe(
      'http://from-config:4318',
    );
  });

  it('turns export off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true', () => {
    expect(tracingOptionsFromEnv({ OTEL_TRACES_EXPORTER: 'none' }).exporter).toBe('none');
    expect(tracingOptionsFromEnv({ OTEL_SDK_DISABLED: 'TRUE' }).exporter).toBe('none');
    expect(tracingOptionsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' }).exporter).toBeUndefined();
  });
});
