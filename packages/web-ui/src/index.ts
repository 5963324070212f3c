// Where the built dashboard and trace viewer live, for the server that serves them. The
// browser code itself is app/, compiled by tsconfig.browser.json into dist/ui.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This module runs as dist/index.js (built) or src/index.ts (tests): both sit one level under
// the package root, so dist/ui is found the same way from either.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Absolute path of the built UI folder (dist/ui): serve it at /ui/ or at the viewer's root. */
export const WEB_UI_ROOT: string = path.join(packageRoot, 'dist', 'ui');
