import { describe, expect, it } from '@jest/globals';
import { backoffDelay, retryWithBackoff } from '../src/index.js';

class Away extends Error {}

describe('backoffDelay', () => {
  it('doubles the first wait per retry up to the cap', () => {
    const waits = [0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, { firstMs: 100, maxMs: 1000 }));
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000]);
    // A huge attempt number neither overflows nor passes the cap.
    expect(backoffDelay(5000, { firstMs: 100, maxMs: 1000 })).toBe(1000);
  });

  it('takes the jitter share off at random: 50–100% of the wait with jitter 0.5', () => {
    const backoff = { firstMs: 1000, maxMs: 60_000, jitter: 0.5 };
    expect(backoffDelay(1, { ...backoff, random: () => 0 })).toBe(1000);
    expect(backoffDelay(1, { ...backoff, random: () => 0.999999 })).toBe(2000);
    expect(backoffDelay(1, { ...backoff, random: () => 0.5 })).toBe(1500);
  });
});

describe('retryWithBackoff', () => {
  it('tries a retryable failure again until the call succeeds, telling the first failure once', async () => {
    let calls = 0;
    const told: unknown[] = [];
    const value = await retryWithBackoff(
      async () => {
        calls += 1;
        if (calls < 4) throw new Away(`away ${calls}`);
        return 'back';
      },
      {
        firstMs: 1,
        maxMs: 2,
        forMs: 60_000,
        retryable: (err) => err instanceof Away,
        onFirstFailure: (err) => told.push(err),
      },
    );
    expect(value).toBe('back');
    expect(calls).toBe(4);
    expect(told).toHaveLength(1);
    expect((told[0] as Error).message).toBe('away 1');
  });

  it('throws a failure that is not retryable at once, as it is', async () => {
    let calls = 0;
    const refused = new Error('refused');
    await expect(
      retryWithBackoff(
        async () => {
          calls += 1;
          throw refused;
        },
        { firstMs: 1, maxMs: 1, forMs: 60_000, retryable: (err) => err instanceof Away },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('throws the last failure once forMs has passed since the first', async () => {
    let clock = 0;
    let calls = 0;
    await expect(
      retryWithBackoff(
        async () => {
          calls += 1;
          clock += 400;
          throw new Away(`away ${calls}`);
        },
        { firstMs: 1, maxMs: 1, forMs: 1000, retryable: () => true, now: () => clock },
      ),
    ).rejects.toThrow('away 4');
    // Failures at 400 (the first: giving up at 1400), 800, 1200 and 1600, past the limit.
    expect(calls).toBe(4);
  });

  it('stops waiting when the signal fires and throws the failure it interrupted', async () => {
    const controller = new AbortController();
    let calls = 0;
    const tried = retryWithBackoff(
      async () => {
        calls += 1;
        // Fired during the first wait, an hour long: the wait ends at once.
        if (calls === 1) queueMicrotask(() => controller.abort());
        throw new Away(`away ${calls}`);
      },
      {
        firstMs: 3_600_000,
        maxMs: 3_600_000,
        forMs: 7_200_000,
        retryable: () => true,
        signal: controller.signal,
      },
    );
    await expect(tried).rejects.toThrow('away 1');
    expect(calls).toBe(1);
  });
});
