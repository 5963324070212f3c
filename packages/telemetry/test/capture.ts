import { PassThrough } from 'node:stream';

/** A writable stream that keeps what is written, split into lines. */
export function captureStream(): {
  stream: PassThrough;
  lines: () => string[];
  json: () => Record<string, unknown>[];
} {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const lines = (): string[] => text.split('\n').filter((line) => line.length > 0);
  return {
    stream,
    lines,
    json: () => lines().map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
