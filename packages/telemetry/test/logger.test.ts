import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createLogger, createNoopLogger } from '../src/index.js';
import { REDACTED } from '../src/redact.js';
import { captureStream } from './capture.js';

const fixedClock = (): Date => new Date('2026-03-04T05:06:07.089Z');

describe('createLogger, JSON format', () => {
  it('writes one JSON record per line with level, ISO ts, msg and the run fields', () => {
    const out = captureStream();
    const logger = createLogger({ level: 'info', format: 'json', stream: out.stream, env: {} });
    logger.info('run finished', {
      agent_id: 7,
      agent_name: 'cost-explorer',
      run_id: 42,
      duration_ms: 1530,
      status: 'completed',
    });
    const [record] = out.json();
    expect(record).toEqual({
      level: 'info',
      ts: expect.any(String),
      msg: 'run finished',
      agent_id: 7,
      agent_name: 'cost-explorer',
      run_id: 42,
      duration_ms: 1530,
      status: 'completed',
    });
    const ts = record?.ts as string;
    expect(new Date(ts).toISOString()).toBe(ts);
    expect(Math.abs(Date.parse(ts) - Date.now())).toBeLessThan(60_000);
    expect(Object.keys(record ?? {}).slice(0, 3)).toEqual(['level', 'ts', 'msg']);
  });

  it('drops records below the configured level', () => {
    const out = captureStream();
    const logger = createLogger({ level: 'warn', format: 'json', stream: out.stream, env: {} });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(out.json().map((r) => [r.level, r.msg])).toEqual([
      ['warn', 'w'],
      ['error', 'e'],
    ]);
  });

  it('writes debug records at level debug and defaults to info', () => {
    const debugOut = captureStream();
    createLogger({ level: 'debug', stream: debugOut.stream, env: {} }).debug('visible');
    const defaultOut = captureStream();
    const defaultLogger = createLogger({ stream: defaultOut.stream, env: {} });
    defaultLogger.debug('hidden');
    defaultLogger.info('shown');
    expect(debugOut.json().map((r) => r.msg)).toEqual(['visible']);
    expect(defaultLogger.level).toBe('info');
    expect(defaultOut.json().map((r) => r.msg)).toEqual(['shown']);
  });

  it('adds base and child fields, the call fields winning', () => {
    const out = captureStream();
    const logger = createLogger({
      stream: out.stream,
      env: {},
      base: { service: 'junction', pid: 1 },
    });
    const runLogger = logger.child({ run_id: 9, agent_name: 'a' }).child({ step: 1 });
    runLogger.info('step done', { step: 2 });
    expect(out.json()[0]).toMatchObject({
      service: 'junction',
      pid: 1,
      run_id: 9,
      agent_name: 'a',
      step: 2,
    });
  });

  it('redacts base and child fields as it redacts the call fields, and writes level, ts, msg first', () => {
    const out = captureStream();
    const logger = createLogger({
      stream: out.stream,
      env: {},
      secrets: ['s3cr3t-value'],
      base: { service: 'junction', api_key: 'base-key' },
    });
    logger
      .child({ token: 'child-token', note: 'uses s3cr3t-value' })
      .info('done', { password: 'call-pw', n: 1 });
    const [line = ''] = out.lines();
    expect(line.startsWith('{"level":"info","ts":"')).toBe(true);
    expect(line).not.toMatch(/base-key|child-token|call-pw|s3cr3t-value/);
    expect(JSON.parse(line)).toMatchObject({
      msg: 'done',
      service: 'junction',
      api_key: '[REDACTED]',
      token: '[REDACTED]',
      note: 'uses [REDACTED]',
      password: '[REDACTED]',
      n: 1,
    });
  });

  it('keeps fields named like the reserved keys under an underscore', () => {
    const out = captureStream();
    createLogger({ stream: out.stream, env: {} }).info('real', { msg: 'field', level: 'x' });
    expect(out.json()[0]).toMatchObject({ level: 'info', msg: 'real', _msg: 'field', _level: 'x' });
  });

  it('serialises errors with name, message and stack', () => {
    const out = captureStream();
    createLogger({ stream: out.stream, env: {} }).error('run failed', {
      error: new TypeError('bad input'),
    });
    const error = out.json()[0]?.error as Record<string, unknown>;
    expect(error.name).toBe('TypeError');
    expect(error.message).toBe('bad input');
    expect(String(error.stack)).toContain('TypeError: bad input');
  });
});

describe('createLogger, default output', () => {
  it('writes to stderr and never to stdout, which `junction stdio` keeps for JSON-RPC', () => {
    const written: { stdout: string[]; stderr: string[] } = { stdout: [], stderr: [] };
    const originalOut = process.stdout.write;
    const originalErr = process.stderr.write;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.stdout.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.stderr.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      createLogger({ env: {} }).info('to stderr');
    } finally {
      process.stdout.write = originalOut;
      process.stderr.write = originalErr;
    }
    expect(written.stdout).toEqual([]);
    expect(written.stderr.join('')).toContain('"msg":"to stderr"');
  });
});

describe('createLogger, text format', () => {
  it('writes one readable line: time, padded level, message, key=value', () => {
    const out = captureStream();
    const logger = createLogger({ format: 'text', stream: out.stream, env: {}, now: fixedClock });
    logger.info('run finished', {
      agent_name: 'ops',
      run_id: 3,
      status: 'completed',
      note: 'two words',
    });
    logger.error('broken\nline', { detail: { a: 1 } });
    expect(out.lines()).toEqual([
      '2026-03-04T05:06:07.089Z INFO  run finished agent_name=ops run_id=3 status=completed note="two words"',
      '2026-03-04T05:06:07.089Z ERROR broken\\nline detail={"a":1}',
    ]);
  });
});

describe('createLogger, redaction', () => {
  it('redacts secret-looking keys, nested too', () => {
    const out = captureStream();
    createLogger({ stream: out.stream, env: {} }).info('config loaded', {
      webhook: { enabled: true, api_key: 'whk_live_0001' },
      management: {
        registration_key: 'reg-9999-abcd',
        oauth: { client_id: 'cid', token_url: 'https://p/oauth/token/' },
      },
      headers: { Authorization: 'Bearer zzz', 'Content-Type': 'application/json' },
      password: 'pw',
      input_tokens: 100,
    });
    expect(out.json()[0]).toMatchObject({
      webhook: { enabled: true, api_key: REDACTED },
      management: {
        registration_key: REDACTED,
        oauth: { client_id: 'cid', token_url: 'https://p/oauth/token/' },
      },
      headers: { Authorization: REDACTED, 'Content-Type': 'application/json' },
      password: REDACTED,
      input_tokens: 100,
    });
  });

  it('redacts known secret values in messages, fields and error messages', () => {
    const secret = 'reg-key-7f3a9c';
    const out = captureStream();
    const logger = createLogger({ stream: out.stream, env: {}, secrets: [secret] });
    logger.error(`registration with ${secret} failed`, {
      detail: `key ${secret} was rejected`,
      error: new Error(`server refused ${secret}`),
    });
    const line = out.lines()[0] ?? '';
    expect(line).not.toContain(secret);
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(record.msg).toBe(`registration with ${REDACTED} failed`);
    expect(record.detail).toBe(`key ${REDACTED} was rejected`);
    expect((record.error as Record<string, unknown>).message).toBe(`server refused ${REDACTED}`);
  });

  it('redacts values of secret environment variables it is given', () => {
    const out = captureStream();
    const logger = createLogger({
      stream: out.stream,
      env: {
        GITHUB_TOKEN: 'ghp_abcdef123456',
        OPENAI_API_KEY: 'sk-proj-999888777',
        PORT: '8585',
        SHORT_KEY: 'abc',
      },
    });
    logger.info('cloning with ghp_abcdef123456 on port 8585, model key sk-proj-999888777, abc');
    expect(out.json()[0]?.msg).toBe(
      `cloning with ${REDACTED} on port 8585, model key ${REDACTED}, abc`,
    );
  });

  it('reads process.env by default', () => {
    const name = 'JUNCTION_TEST_SECRET_TOKEN';
    process.env[name] = 'tok-from-process-env-1';
    try {
      const out = captureStream();
      createLogger({ stream: out.stream }).warn('value tok-from-process-env-1 leaked?');
      expect(out.json()[0]?.msg).toBe(`value ${REDACTED} leaked?`);
    } finally {
      delete process.env[name];
    }
  });
});

describe('createLogger, file output', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends JSON lines to the file (creating its folder) while the stream gets text', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-log-'));
    dirs.push(dir);
    const file = path.join(dir, 'logs', 'junction.log');
    const out = captureStream();
    const logger = createLogger({
      format: 'text',
      stream: out.stream,
      file,
      env: {},
      secrets: ['s3cr3t-value'],
    });
    logger.info('first', { run_id: 1 });
    // Synchronous append: the line is on disk as soon as the call returns.
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    logger.child({ agent_name: 'ops' }).warn('second s3cr3t-value');
    logger.debug('not written');
    await logger.close();
    logger.info('after close');

    const records = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([
      { level: 'info', ts: expect.any(String), msg: 'first', run_id: 1 },
      { level: 'warn', ts: expect.any(String), msg: `second ${REDACTED}`, agent_name: 'ops' },
    ]);
    expect(out.lines()[0]).toMatch(/^\S+ INFO {2}first run_id=1$/);
  });

  it('appends to an existing file instead of truncating it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-log-'));
    dirs.push(dir);
    const file = path.join(dir, 'junction.log');
    fs.writeFileSync(file, '{"level":"info","msg":"old"}\n');
    const logger = createLogger({ stream: captureStream().stream, file, env: {} });
    logger.info('new');
    await logger.close();
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('fails with TELEMETRY_LOG_FILE_UNWRITABLE when the file cannot be opened', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-log-'));
    dirs.push(dir);
    // A directory where the file should be.
    expect(() => createLogger({ file: dir, env: {} })).toThrow(
      expect.objectContaining({ code: 'TELEMETRY_LOG_FILE_UNWRITABLE' }),
    );
  });
});

describe('createNoopLogger', () => {
  it('accepts every call and returns itself as child', () => {
    const logger = createNoopLogger();
    logger.info('x', { a: 1 });
    expect(logger.child({ b: 2 })).toBe(logger);
  });
});
