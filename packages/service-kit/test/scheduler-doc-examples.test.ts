// The examples of docs/scheduler.md parse into the schedules the page says they are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { nextFireTime, parsePrompt, readYaml } from '@junction/config-templates';
import { cronTriggerOf, parseWorkflow } from '@junction/workflows';

const page = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/scheduler.md'),
  'utf8',
);
const examples = new Map(
  [...page.matchAll(/<!-- schedule example: (\w+) -->\n```yaml\n([\s\S]*?)```/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]),
);

describe('docs/scheduler.md', () => {
  it('has its agent example: a 6-field cron in a time zone, with task, variables and policies', async () => {
    const agent = await parsePrompt(examples.get('agent') ?? '', 'reporter.prompt');
    expect(agent.schedule).toEqual({
      cron: '0 0 9 * * 1-5',
      timezone: 'Europe/Paris',
      task: "Summarise yesterday's incidents",
      variables: { region: 'eu' },
      enabled: true,
      catchUp: 'once',
      overlap: 'skip',
    });
    // Monday 2026-03-02 at 09:00 in Paris is 08:00 UTC.
    const next = nextFireTime('0 0 9 * * 1-5', 'Europe/Paris', new Date('2026-03-01T12:00:00Z'));
    expect(next?.toISOString()).toBe('2026-03-02T08:00:00.000Z');
  });

  it('has its workflow example: a cron start state whose run starts at its next state', () => {
    const text = examples.get('workflow') ?? '';
    const model = parseWorkflow(text, 'nightly-report.workflow.yaml');
    expect(model.graph.start).toBe('wrap');
    const read = readYaml(text);
    expect(read.ok && cronTriggerOf(read.value)).toMatchObject({
      cron: '0 2 * * *',
      timezone: 'UTC',
      enabled: true,
      input: { namespace: 'production' },
    });
  });
});
