import { describe, expect, it } from '@jest/globals';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';
import { errorClass, isJunctionError, retryWithBackoff } from '../src/index.js';

const StoreLikeError = errorClass('StoreLikeError', { STORE_UNAVAILABLE: 'unavailable' });

describe('README example', () => {
  it('is the code below, verbatim, and it tries an unavailable read again until it answers', async () => {
    let reads = 0;
    const readRows = async (): Promise<string[]> => {
      reads += 1;
      if (reads < 3) throw new StoreLikeError('STORE_UNAVAILABLE', 'the store is away');
      return ['row'];
    };

    // README-EXAMPLE-START
    const rows = await retryWithBackoff(() => readRows(), {
      firstMs: 100,
      maxMs: 2_000,
      forMs: 40_000,
      retryable: (err) => isJunctionError(err) && err.kind === 'unavailable',
    });
    // README-EXAMPLE-END

    expect(rows).toEqual(['row']);
    expect(reads).toBe(3);
    const { example, readme } = readmeExample(import.meta.url);
    expect(readme).toContain(example);
  });
});
