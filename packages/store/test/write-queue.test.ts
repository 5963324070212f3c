import { describe, expect, it } from '@jest/globals';
import { WriteQueue } from '../src/write-queue.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('WriteQueue', () => {
  it('runs tasks one at a time in call order, even when earlier ones are slower', async () => {
    const queue = new WriteQueue();
    const log: string[] = [];
    let running = 0;
    const task = (name: string, ms: number) => async (): Promise<string> => {
      running += 1;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      await sleep(ms);
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all([
      queue.run(task('a', 30)),
      queue.run(task('b', 1)),
      queue.run(task('c', 10)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('keeps going after a task fails, and reports pending work', async () => {
    const queue = new WriteQueue();
    const failed = queue.run(async () => {
      await sleep(5);
      throw new Error('boom');
    });
    const next = queue.run(async () => 'still runs');
    expect(queue.pending).toBe(2);
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('still runs');
    await queue.idle();
    expect(queue.pending).toBe(0);
  });
});
