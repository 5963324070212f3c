import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export default class WorkflowValidate extends JunctionCommand {
  static override description =
    'Check one workflow file without a workspace: every problem is listed with its state and field (exit 3 when there is one).';

  static override examples = ['<%= config.bin %> workflow validate ./triage.workflow.yaml'];

  static override args = {
    file: Args.string({
      description: 'a .workflow.yaml, .workflow.yml or .workflow.json file',
      required: true,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args } = await this.parse(WorkflowValidate);
    const { readFile } = await import('node:fs/promises');
    const { parseWorkflow, fileStem } = await import('@junction/workflows');
    let text: string;
    try {
      text = await readFile(args.file, 'utf8');
    } catch (err) {
      const { ConfigTemplatesError } = await import('@junction/config-templates');
      throw new ConfigTemplatesError(
        'FILE_UNREADABLE',
        `Cannot read ${args.file}: ${(err as Error).message}.`,
        { path: args.file },
        { cause: err },
      );
    }
    const model = parseWorkflow(text, args.file, fileStem(args.file));
    const result = {
      valid: true,
      file: args.file,
      workflow_id: model.id,
      name: model.name,
      states: model.graph.states.size,
    };
    if (!this.jsonEnabled())
      this.log(
        `${args.file}: valid — workflow "${model.id}" (${model.name}), ${model.graph.states.size} states`,
      );
    return result;
  }
}
