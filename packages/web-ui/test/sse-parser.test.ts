// The SSE parsing the runs stream depends on: app/sse-parser.ts, an adapter over the
// eventsource-parser package (jest.config.js maps its vendor/ path to the package, so this runs
// the same code the browser gets). Any chunking of the same text gives the same events, as the
// event-stream rules of the HTML standard say.
import { describe, expect, it } from '@jest/globals';
import { SseParser, type SseMessage } from '../app/sse-parser.js';

function parseAll(chunks: readonly string[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

const STREAM =
  ': keep-alive\n\n' +
  'event: runs\ndata: {"runs":[{"run_id":1}]}\n\n' +
  ': ping\n' +
  'event: runs\ndata: {"runs":\ndata: [{"run_id":2}]}\nid: 7\n\n';

const EXPECTED: SseMessage[] = [
  { event: 'runs', data: '{"runs":[{"run_id":1}]}', id: undefined },
  { event: 'runs', data: '{"runs":\n[{"run_id":2}]}', id: '7' },
];

describe('SseParser', () => {
  it('reads named events and skips comment lines', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunk boundaries, even mid-line', () => {
    for (let size = 1; size <= 9; size += 1) {
      expect(parseAll(chunked(STREAM, size))).toEqual(EXPECTED);
    }
  });

  it('joins multi-line data with newlines and keeps an event pending until the blank line', () => {
    const parser = new SseParser();
    expect(parser.push('data: first\ndata:second\ndata\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([
      { event: 'message', data: 'first\nsecond\n', id: undefined },
    ]);
  });

  it('accepts CRLF and CR line ends, including a CRLF split between two chunks', () => {
    expect(parseAll(['event: a\r\ndata: 1\r', '\n\r\n', 'data: 2\r\r'])).toEqual([
      { event: 'a', data: '1', id: undefined },
      { event: 'message', data: '2', id: undefined },
    ]);
    // The whole stream with CRLF line ends, cut everywhere: no CRLF counts as two line ends.
    const crlf = STREAM.replace(/\n/g, '\r\n');
    for (let size = 1; size <= 9; size += 1) {
      expect(parseAll(chunked(crlf, size))).toEqual(EXPECTED);
    }
  });

  it('removes one leading space only, and keeps colons inside the value', () => {
    expect(parseAll(['data:  two spaces: yes\n\n'])).toEqual([
      { event: 'message', data: ' two spaces: yes', id: undefined },
    ]);
  });

  it('drops a leading byte-order mark and ignores unknown fields', () => {
    expect(parseAll(['\ufeffdata: x\nfoo: bar\n\n'])).toEqual([
      { event: 'message', data: 'x', id: undefined },
    ]);
  });

  it('does not dispatch an event without data, and the event name does not leak to the next', () => {
    expect(parseAll(['event: lonely\n\ndata: y\n\n'])).toEqual([
      { event: 'message', data: 'y', id: undefined },
    ]);
  });

  it('keeps the last event id for later events, set by a block with data or without', () => {
    expect(
      parseAll(['id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid: 3\u0000\ndata: d\n\n']),
    ).toEqual([
      { event: 'message', data: 'a', id: '1' },
      { event: 'message', data: 'b', id: '1' },
      { event: 'message', data: 'c', id: '2' },
      // An id holding U+0000 is ignored.
      { event: 'message', data: 'd', id: '2' },
    ]);
  });

  it('remembers the retry delay the server asks for, and ignores a malformed one', () => {
    const parser = new SseParser();
    expect(parser.retry).toBeUndefined();
    parser.push('retry: 1500\n\nretry: soon\n\n');
    expect(parser.retry).toBe(1500);
  });

  it('forgets a partial event on reset (a dropped connection)', () => {
    const parser = new SseParser();
    parser.push('event: runs\ndata: {"runs":');
    parser.reset();
    expect(parser.push('data: fresh\n\n')).toEqual([
      { event: 'message', data: 'fresh', id: undefined },
    ]);
  });
});
