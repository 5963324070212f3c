// Regression (issue 13, item 2): a configured secret too short to redact safely (vLLM's "EMPTY",
// a test key "x") was put into every redactor and rewrote stored text; now it is never redacted
// and the process says so at start-up, naming the setting, never the value.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService } from '../src/index.js';
import { shortSecretsOf } from '../src/service-settings.js';

describe('configured secrets too short to redact', () => {
  it('are named in a start-up warning, and their values appear nowhere in it', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'junction-short-'));
    const env = {
      XDG_CONFIG_HOME: home,
      JUNCTION_API_KEY: 'jk_a_long_enough_key',
      OPENAI_API_KEY: 'EMPTY',
      JUNCTION_AI_API_KEY: 'x',
    };
    const config = loadConfig({ paths: resolvePaths(env), env });
    expect(shortSecretsOf(config, env)).toEqual(['ai_api_key', 'OPENAI_API_KEY']);

    const stream = new PassThrough();
    let text = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    const logger = createLogger({ level: 'info', format: 'json', stream, env: {} });
    const store = await openStore({ url: ':memory:' });
    const service = composeService({
      config,
      store,
      logger,
      env,
      version: '0.0.0',
      executes: false,
    });
    await service.stop(0);
    await store.close();
    await logger.close();
    rmSync(home, { recursive: true, force: true });

    const warning = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: string; msg: string; settings?: string[] })
      .find((line) => line.level === 'warn');
    expect(warning?.msg).toContain('ai_api_key, OPENAI_API_KEY are shorter than 8 characters');
    expect(warning?.settings).toEqual(['ai_api_key', 'OPENAI_API_KEY']);
    expect(text).not.toContain('EMPTY');
  });

  it('are none when every key is long enough', () => {
    const env = { XDG_CONFIG_HOME: os.tmpdir(), OPENAI_API_KEY: 'sk-proj-0123456789' };
    expect(shortSecretsOf(loadConfig({ paths: resolvePaths(env), env }), env)).toEqual([]);
  });
});
