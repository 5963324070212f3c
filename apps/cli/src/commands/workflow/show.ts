import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export default class WorkflowShow extends JunctionCommand {
  static override description =
    'Show one workflow: its states in order, with their types and where they go next.';

  static override examples = [
    '<%= config.bin %> workflow show incident-triage',
    '<%= config.bin %> workflow show incident-triage --json',
  ];

  static override args = { id: Args.string({ description: 'workflow id', required: true }) };

  static override flags = {
    env: Flags.string({ char: 'e', description: 'environment of the workflow' }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(WorkflowShow);
    const { createContext } = await import('../../context.js');

    const { findWorkflow, workflowOf, workflowView } = await import('@junction/workflows');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const workflow = await findWorkflow(store, {
        workflow_id: args.id,
        ...(flags.env ? { environment: flags.env } : {}),
      });
      const env = await store.environments.get(workflow.environmentId);
      const view = {
        ...workflowView(workflow, env?.name ?? null),
        definition: workflow.definition,
      };
      if (!this.jsonEnabled()) {
        const model = workflowOf(
          workflow.definition,
          workflow.path ?? workflow.workflowId,
          workflow.workflowId,
        );
        this.log(
          `Workflow ${workflow.workflowId}  ${workflow.name}  (${env?.name ?? '?'})${workflow.enabled ? '' : '  disabled'}`,
        );
        if (model.description) this.log(`  ${model.description}`);
        if (workflow.path) this.log(`  file   ${workflow.path}`);
        this.log(`  start  ${model.graph.start}`);
        for (const id of model.graph.inOrder) {
          const s = model.graph.states.get(id)!;
          const next =
            s.type === 'switch'
              ? [
                  ...s.conditions.map((c) => c.next),
                  ...(s.defaultNext ? [s.defaultNext] : []),
                ].join(' | ')
              : (s.next ?? 'end');
          this.log(`  ${id.padEnd(24)} ${s.type.padEnd(15)} → ${next}`);
        }
      }
      return view;
    } finally {
      await ctx.close();
    }
  }
}
