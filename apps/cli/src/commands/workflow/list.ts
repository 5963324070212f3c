import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export default class WorkflowList extends JunctionCommand {
  static override description =
    'List synced workflows: id, name, environment, enabled, number of states, description.';

  static override examples = [
    '<%= config.bin %> workflow list',
    '<%= config.bin %> workflow list --env prod --json',
  ];

  static override flags = {
    ...tableFlags,
    env: Flags.string({
      char: 'e',
      description: 'only workflows of this environment (default: all)',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Array<Record<string, unknown>>> {
    const { flags } = await this.parse(WorkflowList);
    const { createContext } = await import('../../context.js');
    const { workflowView } = await import('@junction/workflows');
    const { formatTable } = await import('../../table.js');
    const ctx = await createContext();
    try {
      if (flags.env !== undefined) await ctx.requireEnvironment(flags.env);
      const store = await ctx.store();
      const envs = new Map((await store.environments.list()).map((e) => [e.id, e.name]));
      const envId =
        flags.env === undefined ? undefined : [...envs].find(([, n]) => n === flags.env)?.[0];
      const rows = (
        await store.workflows.list(envId === undefined ? {} : { environmentId: envId })
      ).map((w) => workflowView(w, envs.get(w.environmentId) ?? null));
      if (!this.jsonEnabled()) {
        if (rows.length === 0) {
          this.log(
            'No workflows. Add environments/<env>/workflows/<id>.workflow.yaml and run `junction sync <env>`.',
          );
        } else {
          this.log(
            formatTable(
              ['ID', 'NAME', 'ENV', 'ENABLED', 'STATES', 'DESCRIPTION'],
              rows.map((r) => [
                String(r.workflow_id),
                String(r.name),
                String(r.environment ?? '-'),
                r.enabled ? 'yes' : 'no',
                Number(r.states),
                String(r.description),
              ]),
            ),
          );
        }
      }
      return rows;
    } finally {
      await ctx.close();
    }
  }
}
