// The receiver's answers to everything but a plain good export: wrong method, path, media
// type and encoding, oversize bodies (on the wire and once unzipped), garbage, a store that
// cannot write. Each has its status, its code, and leaves the store as it was.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Store } from '@junction/store';
import { otlpTraceTypes } from '../src/decode.js';
import { memoryLogger, openTempStore, startReceiver, type Receiver } from './helpers.js';

const TRACE = '5b8efff798038103d269b633813fc60c';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body as JSON, when it is. */
  json: unknown;
}

/**
 * One request over node:http: with a Content-Length, or (`chunked`) streamed in two pieces
 * without one, so the receiver cannot know the size up front.
 */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer; chunked?: boolean },
): Promise<Answer> {
  const { method = 'POST', headers = {}, body, chunked = false } = options;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(text.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
      });
    });
    // The receiver may answer before it reads all of a refused body; that is not our failure.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (body === undefined) {
      req.end();
    } else if (chunked) {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      setTimeout(() => req.end(body.subarray(half)), 5);
    } else {
      req.setHeader('Content-Length', String(body.length));
      req.end(body);
    }
  });
}

/** An OTLP/JSON request with `count` spans of one trace; `pad` adds an attribute of that length. */
function jsonBody(count = 1, pad = 0, marker = 'marker'): Buffer {
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: TRACE,
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `span ${i}`,
    startTimeUnixNano: '1732500000000000000',
    endTimeUnixNano: '1732500000001000000',
    attributes: [
      { key: 'note', value: { stringValue: marker } },
      ...(pad > 0 ? [{ key: 'pad', value: { stringValue: 'x'.repeat(pad) } }] : []),
    ],
  }));
  return Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
}

/** The same spans, as protobuf. */
function protobufBody(count = 1): Buffer {
  const { request } = otlpTraceTypes();
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: Buffer.from(TRACE, 'hex'),
    spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
    name: `span ${i}`,
    startTimeUnixNano: '1732500000000000000',
    endTimeUnixNano: '1732500000001000000',
  }));
  return Buffer.from(
    request.encode(request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish(),
  );
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
const PROTOBUF_TYPE = { 'Content-Type': 'application/x-protobuf' };

describe('the trace receiver', () => {
  let store: Store;
  let closeStore: () => Promise<void>;
  let receiver: Receiver;
  let log: ReturnType<typeof memoryLogger>;

  beforeEach(async () => {
    ({ store, close: closeStore } = await openTempStore());
    log = memoryLogger();
    receiver = await startReceiver(store, log.logger, 64 * 1024);
  });
  afterEach(async () => {
    await receiver.close();
    await closeStore();
  });

  const storedSpans = async (): Promise<number> => (await store.spans.stats()).spans;

  function expectRefusal(answer: Answer, status: number, code: string): string {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.json).toEqual({ error: { code, message: expect.any(String) } });
    return (answer.json as { error: { message: string } }).error.message;
  }

  describe('a good export', () => {
    it('answers protobuf with an empty protobuf ExportTraceServiceResponse once stored', async () => {
      const answer = await send(receiver.url, { headers: PROTOBUF_TYPE, body: protobufBody(3) });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/x-protobuf/);
      expect(answer.body.length).toBe(0);
      expect(
        otlpTraceTypes().response.toObject(otlpTraceTypes().response.decode(answer.body)),
      ).toEqual({});
      expect(await storedSpans()).toBe(3);
    });

    it('answers JSON with {} and takes a charset', async () => {
      const answer = await send(receiver.url, {
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: jsonBody(2),
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.json).toEqual({});
      expect(await storedSpans()).toBe(2);
    });

    it('takes a gzip body, streamed without a length, in either encoding', async () => {
      const json = await send(receiver.url, {
        headers: { ...JSON_TYPE, 'Content-Encoding': 'gzip' },
        body: zlib.gzipSync(jsonBody(2)),
        chunked: true,
      });
      expect(json.status).toBe(200);
      const proto = await send(receiver.url, {
        headers: { ...PROTOBUF_TYPE, 'Content-Encoding': 'gzip' },
        body: zlib.gzipSync(protobufBody(4)),
      });
      expect(proto.status).toBe(200);
      const identity = await send(receiver.url, {
        headers: { ...JSON_TYPE, 'Content-Encoding': 'identity' },
        body: jsonBody(1),
      });
      expect(identity.status).toBe(200);
      // The same trace and span ids each time: stored once.
      expect(await storedSpans()).toBe(4);
      expect(
        log
          .lines()
          .filter((l) => l.msg === 'received spans')
          .map((l) => [l.encoding, l.gzip, l.spans]),
      ).toEqual([
        ['json', true, 2],
        ['protobuf', true, 4],
        ['json', false, 1],
      ]);
    });

    it('stores a re-sent export once', async () => {
      for (let i = 0; i < 2; i++) {
        expect((await send(receiver.url, { headers: JSON_TYPE, body: jsonBody(3) })).status).toBe(
          200,
        );
      }
      expect(await storedSpans()).toBe(3);
      expect(
        log
          .lines()
          .filter((l) => l.msg === 'received spans')
          .map((l) => l.stored),
      ).toEqual([3, 0]);
    });

    it('answers an export without spans with 200', async () => {
      expect(
        (await send(receiver.url, { headers: PROTOBUF_TYPE, body: Buffer.alloc(0) })).status,
      ).toBe(200);
      expect(
        (await send(receiver.url, { headers: JSON_TYPE, body: Buffer.from('{}') })).status,
      ).toBe(200);
    });
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    'answers %s on /v1/traces with 405 and Allow: POST, storing nothing',
    async (method) => {
      const answer = await send(receiver.url, {
        method,
        headers: JSON_TYPE,
        ...(method === 'GET' ? {} : { body: jsonBody(1) }),
      });
      expect(answer.headers.allow).toBe('POST');
      expect(expectRefusal(answer, 405, 'METHOD_NOT_ALLOWED')).toBe(
        `${method} is not allowed on /v1/traces; OTLP exporters send traces with POST.`,
      );
      expect(await storedSpans()).toBe(0);
    },
  );

  it('answers HEAD on /v1/traces with 405 and Allow: POST', async () => {
    const answer = await send(receiver.url, { method: 'HEAD' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });

  it('answers other paths with a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['POST', '/v1/metrics'],
      ['POST', '/v1/traces/extra'],
    ] as const) {
      const answer = await send(`${receiver.base}${path}`, {
        method,
        headers: JSON_TYPE,
        body: jsonBody(1),
      });
      expect(expectRefusal(answer, 404, 'NOT_FOUND')).toContain('POST /v1/traces');
    }
    expect(await storedSpans()).toBe(0);
  });

  describe('oversize bodies', () => {
    it('refuses a body over the limit with 413, whether its length is declared or not', async () => {
      const body = jsonBody(1, 70 * 1024);
      for (const chunked of [false, true]) {
        const answer = await send(receiver.url, { headers: JSON_TYPE, body, chunked });
        expect(expectRefusal(answer, 413, 'PAYLOAD_TOO_LARGE')).toBe(
          "The request body is larger than 65536 bytes. Export fewer spans per request (the batch span processor's maxExportBatchSize).",
        );
      }
      expect(await storedSpans()).toBe(0);
    });

    it('refuses a gzip body that unzips past the limit with 413', async () => {
      const zipped = zlib.gzipSync(jsonBody(1, 200 * 1024));
      expect(zipped.length).toBeLessThan(64 * 1024);
      const answer = await send(receiver.url, {
        headers: { ...JSON_TYPE, 'Content-Encoding': 'gzip' },
        body: zipped,
      });
      expect(expectRefusal(answer, 413, 'PAYLOAD_TOO_LARGE')).toContain(
        'larger than 65536 bytes once unzipped',
      );
      expect(await storedSpans()).toBe(0);
    });

    it('stops inflating a gzip bomb at the limit', async () => {
      // 100 gzip members of 32 MiB of zeros each: about 3 MiB on the wire, under the default
      // limit of 4 MiB, and 3.2 GiB unzipped — inflating it all would take seconds and memory
      // this process does not have to spare.
      const member = zlib.gzipSync(Buffer.alloc(32 * 1024 * 1024));
      const bomb = Buffer.concat(Array.from({ length: 100 }, () => member));
      expect(bomb.length).toBeLessThan(4 * 1024 * 1024);
      const roomy = await startReceiver(store, log.logger);
      try {
        const started = Date.now();
        const answer = await send(roomy.url, {
          headers: { ...PROTOBUF_TYPE, 'Content-Encoding': 'gzip' },
          body: bomb,
        });
        expect(expectRefusal(answer, 413, 'PAYLOAD_TOO_LARGE')).toBe(
          "The request body is larger than 4194304 bytes once unzipped. Export fewer spans per request (the batch span processor's maxExportBatchSize).",
        );
        expect(Date.now() - started).toBeLessThan(2000);
      } finally {
        await roomy.close();
      }
      expect(await storedSpans()).toBe(0);
    });
  });

  describe('bodies that are not OTLP', () => {
    it('refuses garbage protobuf with 400 INVALID_OTLP', async () => {
      const answer = await send(receiver.url, {
        headers: PROTOBUF_TYPE,
        body: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02]),
      });
      expect(expectRefusal(answer, 400, 'INVALID_OTLP')).toMatch(
        /^the body is not an OTLP protobuf ExportTraceServiceRequest: .+\. Nothing was stored\.$/,
      );
      expect(await storedSpans()).toBe(0);
    });

    it('refuses garbage JSON with 400 INVALID_OTLP and keeps the body out of the log', async () => {
      const answer = await send(receiver.url, {
        headers: JSON_TYPE,
        body: Buffer.from('{"resourceSpans": [secret-body-marker'),
      });
      expect(expectRefusal(answer, 400, 'INVALID_OTLP')).toContain(
        'the body is not an OTLP/JSON ExportTraceServiceRequest: it is not valid JSON',
      );
      expect(log.text()).toContain('refused an OTLP trace export');
      expect(log.text()).not.toContain('secret-body-marker');
      expect(await storedSpans()).toBe(0);
    });

    it('refuses a whole export when one span has no valid id, storing none of it', async () => {
      const good = JSON.parse(jsonBody(2).toString()) as {
        resourceSpans: [{ scopeSpans: [{ spans: Array<Record<string, unknown>> }] }];
      };
      good.resourceSpans[0].scopeSpans[0].spans[1]!.traceId = '0'.repeat(32);
      const answer = await send(receiver.url, {
        headers: JSON_TYPE,
        body: Buffer.from(JSON.stringify(good)),
      });
      expect(expectRefusal(answer, 400, 'INVALID_OTLP')).toBe(
        'the body is not an OTLP/JSON ExportTraceServiceRequest: resourceSpans[0].scopeSpans[0].spans[1].traceId is all zeros, which is not a valid id. Nothing was stored.',
      );
      expect(await storedSpans()).toBe(0);
    });

    it('refuses a gzip header on a body that is not gzip with 400', async () => {
      const answer = await send(receiver.url, {
        headers: { ...JSON_TYPE, 'Content-Encoding': 'gzip' },
        body: jsonBody(1),
      });
      expect(expectRefusal(answer, 400, 'INVALID_OTLP')).toContain('The body is not valid gzip');
      expect(await storedSpans()).toBe(0);
    });
  });

  describe('media types and encodings', () => {
    it.each([
      ['text/plain', { 'Content-Type': 'text/plain' }],
      ['application/xml', { 'Content-Type': 'application/xml' }],
      ['no Content-Type', {}],
    ])('refuses %s with 415 naming the two accepted types', async (_name, headers) => {
      const answer = await send(receiver.url, { headers, body: jsonBody(1) });
      const message = expectRefusal(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(message).toContain('application/x-protobuf');
      expect(message).toContain('application/json');
      expect(await storedSpans()).toBe(0);
    });

    it('refuses a Content-Encoding other than gzip and identity with 415', async () => {
      const answer = await send(receiver.url, {
        headers: { ...JSON_TYPE, 'Content-Encoding': 'br' },
        body: zlib.brotliCompressSync(jsonBody(1)),
      });
      expect(expectRefusal(answer, 415, 'UNSUPPORTED_MEDIA_TYPE')).toBe(
        'The Content-Encoding "br" is not supported. Send the body uncompressed or gzip.',
      );
    });

    it('refuses OTLP/JSON in a charset other than UTF-8 with 415', async () => {
      const answer = await send(receiver.url, {
        headers: { 'Content-Type': 'application/json; charset=iso-8859-1' },
        body: jsonBody(1),
      });
      expect(expectRefusal(answer, 415, 'UNSUPPORTED_MEDIA_TYPE')).toContain('"iso-8859-1"');
    });
  });

  it('answers 503 STORE_UNAVAILABLE with Retry-After when the store cannot write', async () => {
    await store.close();
    const answer = await send(receiver.url, { headers: PROTOBUF_TYPE, body: protobufBody(2) });
    expect(answer.headers['retry-after']).toBe('1');
    expect(expectRefusal(answer, 503, 'STORE_UNAVAILABLE')).toBe(
      'The spans could not be stored; nothing of this export was kept. Send it again later.',
    );
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'could not store received spans', spans: 2 }),
    );
  });
});
