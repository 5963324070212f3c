// Regression (issue 13, item 15): headers or URLs over 16 KB got Node's bare 431 with an empty
// body; every listener answers JSON like every other error.
import http from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { envPortHint, listen } from '../src/index.js';

function get(
  port: number,
  route: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  type: string;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: route, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
      );
    });
    req.on('error', reject);
  });
}

describe('a request Node refuses before any route', () => {
  it('is answered as JSON: 431 HEADERS_TOO_LARGE for a long URL or header', async () => {
    const served = await listen((_req, res) => res.end('ok'), {
      host: '127.0.0.1',
      port: 0,
      what: 'test',
      hint: envPortHint('JUNCTION_API_PORT'),
    });
    try {
      for (const answer of [
        await get(served.port, `/${'a'.repeat(20_000)}`),
        await get(served.port, '/', { 'x-big': 'b'.repeat(20_000) }),
      ]) {
        expect(answer.status).toBe(431);
        expect(answer.type).toContain('application/json');
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'HEADERS_TOO_LARGE' } });
      }
      expect((await get(served.port, '/')).body).toBe('ok');
    } finally {
      await served.stop(0);
    }
  });
});
