// Regression (issue 13, item 7): the log file was created 0644.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from '../src/index.js';

describe('the log file', () => {
  it('is created owner-only (0600), in an owner-only folder', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-log-mode-'));
    const file = path.join(dir, 'logs', 'junction.log');
    const logger = createLogger({
      level: 'info',
      format: 'json',
      file,
      stream: new Writable({ write: (_c, _e, done): void => done() }),
      env: {},
    });
    logger.info('hello');
    await logger.close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
