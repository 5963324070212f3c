import { describe, expect, it } from '@jest/globals';
import { isStoreError, openStore, StoreError } from '../src/index.js';
import { STORE_ERROR_CODES } from '../src/store-error.js';

describe('StoreError', () => {
  it('carries a stable code, JSON-safe details and the original cause', async () => {
    const store = await openStore({ url: ':memory:' });
    await store.environments.create({ name: 'dup' });
    const err = await store.environments.create({ name: 'dup' }).catch((e: unknown) => e);
    await store.close();

    expect(err).toBeInstanceOf(StoreError);
    expect(isStoreError(err, 'CONFLICT')).toBe(true);
    const storeErr = err as StoreError;
    expect(STORE_ERROR_CODES).toContain(storeErr.code);
    expect(storeErr.message).toMatch(/already exists.*Use a different name/);
    expect(storeErr.details).toMatchObject({
      operation: 'create environment "dup"',
      sqliteCode: 'SQLITE_CONSTRAINT_UNIQUE',
    });
    expect(storeErr.cause).toBeInstanceOf(Error);
    const json = JSON.parse(JSON.stringify(storeErr)) as Record<string, unknown>;
    expect(json).toEqual({
      name: 'StoreError',
      code: 'CONFLICT',
      message: storeErr.message,
      details: storeErr.details,
    });
  });

  it('says which row is missing for NOT_FOUND', async () => {
    const store = await openStore({ url: ':memory:' });
    const err = await store.runs.markCompleted(41).catch((e: unknown) => e);
    await store.close();
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'run', key: 41 } });
    expect((err as Error).message).toContain('junction runs list');
  });
});
