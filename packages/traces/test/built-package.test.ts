// The built package (dist/) finds its proto file as the sources do: the folder sits at the
// package root, beside both, and ships in "files".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, expect, it } from '@jest/globals';
import { ensureBuilt } from '@junction/tooling/fixtures/built-package.mjs';
import { otlpTraceTypes } from '../src/decode.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

beforeAll(() => {
  ensureBuilt(packageDir);
}, 120_000);

it('decodes protobuf from dist/, reading proto/otlp-trace.proto', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    files: string[];
  };
  expect(pkg.files).toContain('proto');
  const { request } = otlpTraceTypes();
  const body = request
    .encode(
      request.fromObject({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex'),
                    spanId: Buffer.from('eee19b7ec3c1b174', 'hex'),
                    name: 'from dist',
                  },
                ],
              },
            ],
          },
        ],
      }),
    )
    .finish();
  const script = `
    import { decodeOtlpTraces } from ${JSON.stringify(pathToFileURL(path.join(packageDir, 'dist', 'decode.js')).href)};
    const [span] = decodeOtlpTraces(Buffer.from(process.argv[1], 'hex'), 'protobuf');
    console.log(JSON.stringify([span.name, span.traceId, span.serviceName]));
  `;
  const stdout = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', script, Buffer.from(body).toString('hex')],
    { cwd: packageDir, encoding: 'utf8' },
  );
  expect(JSON.parse(stdout)).toEqual([
    'from dist',
    '5b8efff798038103d269b633813fc60c',
    'unknown_service',
  ]);
});
