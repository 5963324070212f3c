// What the server is told about the built UI: WEB_UI_FILES lists exactly what the build makes,
// WEB_UI_ROOT points at dist/ui, the README example serves it, and no built file names an
// address outside the server.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';
import { WEB_UI_ROOT } from '../src/index.js';
import { WEB_UI_FILES } from '../src/web-ui-files.js';
import { buildUi, listFiles, PACKAGE_ROOT } from './fixtures/build-ui.js';

let built: string;

beforeAll(() => {
  built = buildUi();
}, 180_000);

afterAll(() => {
  rmSync(built, { recursive: true, force: true });
});

describe('the built UI', () => {
  it('is exactly the files WEB_UI_FILES lists', () => {
    expect(listFiles(built)).toEqual([...WEB_UI_FILES]);
  });

  it('lives in dist/ui of this package', () => {
    expect(WEB_UI_ROOT).toBe(path.join(PACKAGE_ROOT, 'dist', 'ui'));
  });

  it('names no address outside the server and parses no HTML from strings', () => {
    for (const file of WEB_UI_FILES) {
      const text = readFileSync(path.join(built, file), 'utf8');
      // A vendored package is copied as published: its doc comments may cite the SSE standard's
      // address (the browser never fetches a comment), its code may name none.
      const checked = file.startsWith('vendor/') ? text.replace(/\/\*[\s\S]*?\*\//g, '') : text;
      expect({
        file,
        urls: checked.match(/\b(https?:)?\/\/[a-z0-9-]+(\.[a-z0-9-]+)+/gi) ?? [],
      }).toEqual({ file, urls: [] });
      expect({
        file,
        html: /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write)\b/.test(text),
      }).toEqual({
        file,
        html: false,
      });
    }
  });

  it('loads every module with a relative path, so it works under /ui/ and at the root', () => {
    const html = readFileSync(path.join(built, 'index.html'), 'utf8');
    expect(html).toContain('<script type="module" src="./app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="./style.css" />');
    for (const file of WEB_UI_FILES.filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(path.join(built, file), 'utf8');
      for (const [, spec] of text.matchAll(/\bfrom '([^']+)'/g)) {
        expect({ file, spec }).toEqual({ file, spec: expect.stringMatching(/^\.\.?\/.+\.js$/) });
      }
    }
  });
});

describe('README example', () => {
  it('is the code below, verbatim, and it serves the dashboard', async () => {
    // The example serves dist/ui: build it there when the package was not built yet.
    if (!existsSync(path.join(WEB_UI_ROOT, 'index.html'))) buildUi(WEB_UI_ROOT);
    const port = 0;
    // README-EXAMPLE-START
    const app = express();
    app.get('/ui/ui-config.json', (_req, res) => {
      res.json({ mode: 'dashboard', viewer_url: null, dashboard_url: null, version: '0.1.0' });
    });
    app.use('/ui', express.static(WEB_UI_ROOT));
    const server = app.listen(port, '127.0.0.1');
    // README-EXAMPLE-END
    try {
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await fetch(`${origin}/ui/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module" src="./app.js">');
      expect((await fetch(`${origin}/ui/pages/runs.js`)).headers.get('content-type')).toMatch(
        /javascript/,
      );
      expect(await (await fetch(`${origin}/ui/ui-config.json`)).json()).toMatchObject({
        mode: 'dashboard',
      });

      const { example, readme } = readmeExample(import.meta.url);
      expect(readme).toContain(example);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
