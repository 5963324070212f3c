// decodeOtlpTraces on bodies made by hand: every AnyValue form, 64-bit times to the
// microsecond, and each way a body or an id can be wrong.
import { describe, expect, it } from '@jest/globals';
import { decodeOtlpTraces, otlpTraceTypes } from '../src/decode.js';
import { TracesError } from '../src/errors.js';

const TRACE = '5B8EFFF798038103D269B633813FC60C';
const SPAN = 'EEE19B7EC3C1B174';
const PARENT = 'EEE19B7EC3C1B173';

/** An OTLP/JSON request with one resource, one scope and the given spans. */
function jsonRequest(spans: unknown[], resourceAttributes: unknown[] = []): Buffer {
  return Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: resourceAttributes },
          scopeSpans: [{ scope: { name: 'my.library', version: '1.0.0' }, spans }],
        },
      ],
    }),
  );
}

function refusalOf(fn: () => unknown): TracesError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TracesError) return err;
    throw err;
  }
  throw new Error('expected an TracesError');
}

describe('decodeOtlpTraces, OTLP/JSON', () => {
  it('reads every field and attribute form, ids as lowercase hex and times to the microsecond', () => {
    const [span] = decodeOtlpTraces(
      jsonRequest(
        [
          {
            traceId: TRACE,
            spanId: SPAN,
            parentSpanId: PARENT,
            name: 'I am a span!',
            kind: 2,
            startTimeUnixNano: '1544712660000123456',
            // A JSON number, as some senders write it (this one a double holds exactly).
            endTimeUnixNano: 1544712661000000000,
            attributes: [
              { key: 'my.span.attr', value: { stringValue: 'some value' } },
              { key: 'count', value: { intValue: '42' } },
              { key: 'huge', value: { intValue: '9223372036854775807' } },
              { key: 'negative', value: { intValue: -7 } },
              { key: 'ratio', value: { doubleValue: 0.5 } },
              { key: 'nan', value: { doubleValue: 'NaN' } },
              { key: 'flag', value: { boolValue: true } },
              { key: 'blob', value: { bytesValue: 'AQID' } },
              {
                key: 'list',
                value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }, {}] } },
              },
              {
                key: 'map',
                value: {
                  kvlistValue: {
                    values: [
                      { key: 'inner', value: { boolValue: false } },
                      { key: '__proto__', value: { stringValue: 'kept as a key' } },
                    ],
                  },
                },
              },
              { key: 'junction.run_id', value: { intValue: '17' } },
            ],
            events: [
              {
                timeUnixNano: '1544712660500000999',
                name: 'retry',
                attributes: [{ key: 'attempt', value: { intValue: '2' } }],
              },
            ],
            status: { code: 2, message: 'it broke' },
          },
        ],
        [{ key: 'service.name', value: { stringValue: 'my.service' } }],
      ),
      'json',
    );
    expect(span).toEqual({
      traceId: TRACE.toLowerCase(),
      spanId: SPAN.toLowerCase(),
      parentSpanId: PARENT.toLowerCase(),
      name: 'I am a span!',
      kind: 2,
      serviceName: 'my.service',
      scopeName: 'my.library',
      startUs: 1544712660000123,
      durationUs: 999_876,
      statusCode: 2,
      statusMessage: 'it broke',
      attributes: {
        'my.span.attr': 'some value',
        count: 42,
        huge: '9223372036854775807',
        negative: -7,
        ratio: 0.5,
        nan: 'NaN',
        flag: true,
        blob: 'AQID',
        list: ['a', 1, null],
        map: JSON.parse('{"inner": false, "__proto__": "kept as a key"}') as unknown,
        'junction.run_id': 17,
      },
      events: [{ name: 'retry', timeUs: 1544712660500000, attributes: { attempt: 2 } }],
      resource: { 'service.name': 'my.service' },
      runId: 17,
    });
    expect(Object.getPrototypeOf((span?.attributes as { map: object }).map)).toBe(Object.prototype);
  });

  it('defaults what is missing: no parent, unknown_service, unset status, kind 0', () => {
    const [span] = decodeOtlpTraces(
      Buffer.from(
        JSON.stringify({
          resourceSpans: [
            { scopeSpans: [{ spans: [{ traceId: TRACE, spanId: SPAN, parentSpanId: '' }] }] },
          ],
        }),
      ),
      'json',
    );
    expect(span).toMatchObject({
      parentSpanId: null,
      name: '',
      kind: 0,
      serviceName: 'unknown_service',
      scopeName: null,
      startUs: 0,
      durationUs: 0,
      statusCode: 0,
      statusMessage: null,
      attributes: {},
      events: [],
      resource: {},
      runId: null,
    });
    expect(decodeOtlpTraces(Buffer.from('{}'), 'json')).toEqual([]);
    expect(decodeOtlpTraces(Buffer.from('{"resourceSpans": []}'), 'json')).toEqual([]);
  });

  it.each([
    ['not JSON', 'not json {', 'it is not valid JSON'],
    ['a JSON array', '[1, 2]', 'expected a JSON object with "resourceSpans"'],
    ['resourceSpans not an array', '{"resourceSpans": 5}', 'resourceSpans must be an array'],
    [
      'a span not an object',
      '{"resourceSpans": [{"scopeSpans": [{"spans": ["x"]}]}]}',
      'resourceSpans[0].scopeSpans[0].spans[0] must be an object',
    ],
    [
      'a time that is not a number',
      `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "${TRACE}", "spanId": "${SPAN}", "startTimeUnixNano": "soon"}]}]}]}`,
      'resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano must be a whole number of nanoseconds',
    ],
  ])('refuses %s', (_name, body, reason) => {
    const err = refusalOf(() => decodeOtlpTraces(Buffer.from(body), 'json'));
    expect(err.code).toBe('INVALID_OTLP');
    expect(err.message).toContain('the body is not an OTLP/JSON ExportTraceServiceRequest: ');
    expect(err.message).toContain(reason);
  });

  it.each([
    ['a missing trace id', { spanId: SPAN }, 'traceId is missing'],
    ['an all-zero trace id', { traceId: '0'.repeat(32), spanId: SPAN }, 'traceId is all zeros'],
    ['a short trace id', { traceId: 'abc', spanId: SPAN }, 'traceId must be 32 hex digits'],
    [
      'a base64 trace id',
      { traceId: 'W47/95gDgQPSabYzgT/GDA==', spanId: SPAN },
      'traceId must be 32 hex digits',
    ],
    ['a missing span id', { traceId: TRACE }, 'spanId is missing'],
    ['an all-zero span id', { traceId: TRACE, spanId: '0'.repeat(16) }, 'spanId is all zeros'],
    [
      'a parent id of the wrong length',
      { traceId: TRACE, spanId: SPAN, parentSpanId: 'ab' },
      'parentSpanId must be 16 hex digits',
    ],
  ])('refuses a span with %s', (_name, span, reason) => {
    const err = refusalOf(() =>
      decodeOtlpTraces(jsonRequest([{ traceId: TRACE, spanId: SPAN }, span]), 'json'),
    );
    expect(err.message).toContain(`resourceSpans[0].scopeSpans[0].spans[1].${reason}`);
  });
});

describe('decodeOtlpTraces, protobuf', () => {
  const { request } = otlpTraceTypes();

  function protobufRequest(spans: Record<string, unknown>[]): Buffer {
    const message = request.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'proto.svc' } }] },
          scopeSpans: [{ scope: { name: 'scope' }, spans }],
        },
      ],
    });
    return Buffer.from(request.encode(message).finish());
  }

  it('reads bytes ids as hex and fixed64 nanoseconds past 2^53 exactly', () => {
    const [span] = decodeOtlpTraces(
      protobufRequest([
        {
          traceId: Buffer.from(TRACE, 'hex'),
          spanId: Buffer.from(SPAN, 'hex'),
          name: 'proto span',
          kind: 3,
          startTimeUnixNano: '1732500000123456789',
          endTimeUnixNano: '1732500000123459999',
          attributes: [
            { key: 'big', value: { intValue: '9007199254740993' } },
            { key: 'small', value: { intValue: '-5' } },
            { key: 'run_id', value: { intValue: '3' } },
            { key: 'raw', value: { bytesValue: Buffer.from([1, 2, 3]) } },
          ],
          events: [{ name: 'e', timeUnixNano: '1732500000123457000' }],
          status: { code: 1 },
        },
      ]),
      'protobuf',
    );
    expect(span).toEqual({
      traceId: TRACE.toLowerCase(),
      spanId: SPAN.toLowerCase(),
      parentSpanId: null,
      name: 'proto span',
      kind: 3,
      serviceName: 'proto.svc',
      scopeName: 'scope',
      startUs: 1732500000123456,
      durationUs: 3,
      statusCode: 1,
      statusMessage: null,
      attributes: { big: '9007199254740993', small: -5, run_id: 3, raw: 'AQID' },
      events: [{ name: 'e', timeUs: 1732500000123457, attributes: {} }],
      resource: { 'service.name': 'proto.svc' },
      runId: 3,
    });
  });

  it('answers no spans for an empty body (an empty request)', () => {
    expect(decodeOtlpTraces(Buffer.alloc(0), 'protobuf')).toEqual([]);
  });

  it.each([
    ['a length past the end', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])],
    ['a bad wire type', Buffer.from([0x0f, 0x01])],
    ['truncated', Buffer.from([0x0a, 0x05, 0x12])],
  ])('refuses a body with %s', (_name, body) => {
    const err = refusalOf(() => decodeOtlpTraces(body, 'protobuf'));
    expect(err.message).toMatch(/^the body is not an OTLP protobuf ExportTraceServiceRequest: ./);
  });

  it('refuses a span whose ids are the wrong size or all zeros', () => {
    const short = refusalOf(() =>
      decodeOtlpTraces(
        protobufRequest([
          { traceId: Buffer.from('abcd', 'hex'), spanId: Buffer.from(SPAN, 'hex') },
        ]),
        'protobuf',
      ),
    );
    expect(short.message).toBe(
      'the body is not an OTLP protobuf ExportTraceServiceRequest: resourceSpans[0].scopeSpans[0].spans[0].traceId must be 16 bytes; got 2',
    );
    const zeros = refusalOf(() =>
      decodeOtlpTraces(
        protobufRequest([{ traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.alloc(8) }]),
        'protobuf',
      ),
    );
    expect(zeros.message).toContain('spans[0].spanId is all zeros');
  });
});
