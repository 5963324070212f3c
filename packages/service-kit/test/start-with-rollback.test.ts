import { describe, expect, it } from '@jest/globals';
import { ServiceError } from '../src/index.js';
import { startWithRollback } from '../src/start-with-rollback.js';

function recordingLogger(): {
  records: Array<[string, unknown]>;
  error(msg: string, fields?: unknown): void;
} {
  const records: Array<[string, unknown]> = [];
  return { records, error: (msg, fields) => records.push([msg, fields]) };
}

describe('startWithRollback', () => {
  it('returns what the steps built and closes nothing', async () => {
    const logger = recordingLogger();
    const closed: string[] = [];
    const built = await startWithRollback(logger, async (onRollback) => {
      onRollback(async () => closed.push('store'));
      return 'running';
    });
    expect(built).toBe('running');
    expect(closed).toEqual([]);
    expect(logger.records).toEqual([]);
  });

  it('a failure half-way is logged, closes what was opened newest first, and is rethrown', async () => {
    const logger = recordingLogger();
    const closed: string[] = [];
    const failure = new ServiceError('PORT_IN_USE', 'Port 8586 (MCP over HTTP) is already in use.');
    const result = startWithRollback(logger, async (onRollback) => {
      onRollback(async () => closed.push('logger'));
      onRollback(async () => closed.push('store'));
      onRollback(() => Promise.reject(new Error('already closed'))); // ignored
      onRollback(async () => closed.push('REST listener'));
      throw failure;
    });
    await expect(result).rejects.toBe(failure);
    expect(closed).toEqual(['REST listener', 'store', 'logger']);
    expect(logger.records).toEqual([
      [
        'start-up failed',
        { code: 'PORT_IN_USE', error: 'Port 8586 (MCP over HTTP) is already in use.' },
      ],
    ]);
  });
});
