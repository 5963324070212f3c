import fs from 'node:fs';
import type http from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { drainSecondsOf, envPortHint, listen } from '../src/index.js';

describe('README example', () => {
  it('is the code below, verbatim, and it runs', async () => {
    const app: http.RequestListener = (_req, res) => res.end('ok');
    const config = { webhook: { port: 0 } };

    // README-EXAMPLE-START
    const drainMs = drainSecondsOf(process.env) * 1000;
    const http = await listen(app, {
      host: '127.0.0.1',
      port: config.webhook.port,
      what: 'webhook routes',
      hint: envPortHint('JUNCTION_WEBHOOK_PORT'),
    });
    const service = { port: http.port, stop: () => http.stop(drainMs) };
    // README-EXAMPLE-END

    const res = await fetch(`http://127.0.0.1:${service.port}/`);
    expect(await res.text()).toBe('ok');
    await service.stop();

    const source = fs.readFileSync(new URL(import.meta.url), 'utf8');
    const marked = /\/\/ README-EXAMPLE-START\n([\s\S]*?)\n\s*\/\/ README-EXAMPLE-END/.exec(source);
    const example = marked![1]!.replace(/^ {4}/gm, '');
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example}\n\`\`\``);
  });
});
