import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createModelCheck } from '@junction/agent-core/models';
import { createRunDoor } from '@junction/agent-core/runs';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { getSchedule, Scheduler, scheduleView, setSchedule } from '../src/index.js';
import { SCHEDULER_LEASE } from '../src/scheduler.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

describe('README example', () => {
  it('is the code below, verbatim, and it holds the lease and sets the schedule', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-scheduler-readme-'));
    const databaseFile = path.join(dir, 'junction.db');
    const seed = await openStore({ url: databaseFile });
    await seed.agents.create((await seed.environments.ensure('default')).id, { name: 'assistant' });
    await seed.close();
    const checkModel = createModelCheck(
      { ai_model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: 'sk-test' },
    );
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]): void => void printed.push(args);
    const before = Date.now();
    try {
      // README-EXAMPLE-START
      const store = await openStore({ url: databaseFile });
      const logger = createLogger({ level: 'info' });
      const scheduler = new Scheduler({
        store,
        runs: createRunDoor({ store, checkModel }),
        logger,
        onError: (e) =>
          logger.error('a schedule could not start its run', {
            schedule_id: e.scheduleId,
            error: e.error,
          }),
      });
      await scheduler.start();
      console.log(scheduler.status()); // 'running', or 'standby' while another process holds the lease

      // What `junction schedule set assistant --cron '*/5 * * * *'` does:
      const schedule = await setSchedule(
        store,
        { kind: 'agent', name: 'assistant' },
        { cron: '*/5 * * * *', timezone: 'Europe/Paris', task: 'Check the support queue' },
      );
      scheduler.changed(); // look at the schedules now, not at the next poll
      console.log(scheduleView(schedule).next_run_at);

      await scheduler.stop(); // the lease is given up at once
      await store.close();
      // README-EXAMPLE-END

      console.log = log;
      expect(scheduler.status()).toBe('stopped');
      expect(printed).toHaveLength(2);
      expect(printed[0]).toEqual(['running']);
      // The next 5-minute mark after the schedule was set (Paris is a whole hours off UTC).
      const next = new Date(printed[1]![0] as string);
      expect(next.toISOString()).toBe(printed[1]![0]);
      expect(next.getTime()).toBeGreaterThan(before);
      expect(next.getTime()).toBeLessThanOrEqual(before + 5 * 60_000);
      expect(next.getTime() % (5 * 60_000)).toBe(0);

      const again = await openStore({ url: databaseFile });
      try {
        expect(
          scheduleView(await getSchedule(again, { kind: 'agent', name: 'assistant' })),
        ).toMatchObject({
          kind: 'agent',
          target: 'assistant',
          cron: '*/5 * * * *',
          timezone: 'Europe/Paris',
          task: 'Check the support queue',
          origin: 'operator',
          enabled: true,
        });
        // Given up on stop: another process takes the lease at once.
        expect(await again.leases.get(SCHEDULER_LEASE)).toBeUndefined();
      } finally {
        await again.close();
      }
    } finally {
      console.log = log;
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
