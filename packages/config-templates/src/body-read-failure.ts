// The one rule for a request body that could not be read — too large, not JSON, an unsupported
// charset or encoding, a compressed body that does not decode, a body cut short — as every HTTP
// surface (REST, the webhook port) answers it. Body parsers mark their errors with a `type` and a
// 4xx `status`; zlib's own errors (Z_DATA_ERROR, …) come through with only their `code`. Plain
// data in, plain data out: each surface maps the kind to its own code.

/** What went wrong reading a body, with the words a caller needs to fix it. */
export type BodyReadFailure =
  | { kind: 'too_large'; lengthBytes: number | null; limitBytes: number | null }
  | { kind: 'not_json'; detail: string }
  | { kind: 'unsupported'; message: string }
  | { kind: 'undecodable'; message: string }
  | { kind: 'incomplete'; message: string }
  /** Another body parser refusal (a form with too many fields, …). */
  | { kind: 'unreadable'; message: string };

interface ParserErrorLike {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  code?: unknown;
  message?: unknown;
  length?: unknown;
  limit?: unknown;
  charset?: unknown;
  encoding?: unknown;
}

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The answer to a body whose Content-Encoding does not decode (gzip that is not gzip, …). */
export const BODY_UNDECODABLE_MESSAGE =
  'The request body could not be decoded with its Content-Encoding; send it uncompressed, or compressed as it says (gzip, deflate or br).';

/** What went wrong reading a request body, or undefined when `err` is no body-reading failure. */
export function bodyReadFailure(err: unknown): BodyReadFailure | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as ParserErrorLike;
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  switch (e.type) {
    case 'entity.too.large':
      return {
        kind: 'too_large',
        lengthBytes: numberOrNull(e.length),
        limitBytes: numberOrNull(e.limit),
      };
    case 'entity.parse.failed':
      return { kind: 'not_json', detail: String(e.message ?? '').slice(0, 200) };
    case 'charset.unsupported':
      return {
        kind: 'unsupported',
        message: `The charset ${JSON.stringify(String(e.charset ?? ''))} is not supported: send the body as UTF-8 JSON (Content-Type: application/json; charset=utf-8).`,
      };
    case 'encoding.unsupported':
      return {
        kind: 'unsupported',
        message: `The content encoding ${JSON.stringify(String(e.encoding ?? ''))} is not supported: send the body uncompressed, or compressed with gzip, deflate or br.`,
      };
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return {
        kind: 'incomplete',
        message: 'The request body could not be read completely; send it again, complete.',
      };
    case 'parameters.too.many':
      return {
        kind: 'unreadable',
        message: 'The form has too many fields; send only the fields this route takes.',
      };
    default:
      if (typeof e.code === 'string' && /^Z_/.test(e.code)) {
        return { kind: 'undecodable', message: BODY_UNDECODABLE_MESSAGE };
      }
      return typeof e.type === 'string'
        ? {
            kind: 'unreadable',
            message: `The request body could not be read (${e.type.slice(0, 60)}); send it again, complete and well-formed.`,
          }
        : undefined;
  }
}
