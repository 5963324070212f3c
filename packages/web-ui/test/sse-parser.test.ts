// The SSE parser the runs stream depends on: any chunking of the same bytes gives the same
// events, as the event-stream rules of the HTML standard say.
import { describe, expect, it } from '@jest/globals';
import { SseParser, type SseMessage } from '../app/sse-parser.js';

function parseAll(chunks: readonly string[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
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
      const chunks: string[] = [];
      for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
      expect(parseAll(chunks)).toEqual(EXPECTED);
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

  it('remembers the retry delay the server asks for, and ignores a malformed one', () => {
    const parser = new SseParser();
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
