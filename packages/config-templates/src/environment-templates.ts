// Loads every MCP template of an environment at once, so `junction sync` either gets a complete,
// rendered set or one error that names every missing variable and broken file: nothing half-done.
import { readFile } from 'node:fs/promises';
import { TemplateError } from './errors.js';
import type { JsonValue } from './errors.js';
import { hashTemplate, parseMcpTemplate, templateName } from './mcp-template.js';
import type { McpTemplate } from './mcp-template.js';
import { renderTemplate } from './template-renderer.js';
import type { Workspace } from './workspace.js';

/** One template of an environment, rendered and parsed. */
export interface LoadedTemplate {
  /** The file stem. */
  name: string;
  /** Absolute path of the template file. */
  file: string;
  /** sha256 of the file as written (placeholders unrendered). */
  sourceHash: string;
  /** sha256 of the rendered text; changes when a variable's value changes. */
  renderedHash: string;
  template: McpTemplate;
}

/** Renders and parses every template of an environment; all of them, or one error covering every problem in every file. */
export async function loadEnvironmentTemplates(
  workspace: Workspace,
  env: string,
  processEnv: NodeJS.ProcessEnv,
): Promise<LoadedTemplate[]> {
  const variables = await workspace.readVariables(env);
  const files = await workspace.listTemplateFiles(env);
  const loaded: LoadedTemplate[] = [];
  const missing: { file: string; variables: string[] }[] = [];
  const invalid: { file: string; problems: string[] }[] = [];
  const causes: unknown[] = [];
  for (const file of files) {
    try {
      const source = await readFile(file, 'utf8');
      const rendered = renderTemplate(source, { variables, processEnv, file });
      loaded.push({
        name: templateName(file),
        file,
        sourceHash: hashTemplate(source),
        renderedHash: hashTemplate(rendered),
        template: parseMcpTemplate(rendered, file),
      });
    } catch (error) {
      causes.push(error);
      if (error instanceof TemplateError && error.code === 'TEMPLATE_VARIABLE_MISSING') {
        const names = (error.details.missing as { variables: string[] }[])[0]?.variables ?? [];
        missing.push({ file, variables: names });
      } else if (error instanceof TemplateError && error.code === 'TEMPLATE_INVALID') {
        const problems = (error.details.invalid as { problems: string[] }[])[0]?.problems ?? [
          error.message,
        ];
        invalid.push({ file, problems });
      } else {
        invalid.push({ file, problems: [`cannot be read: ${(error as Error).message}`] });
      }
    }
  }
  if (missing.length === 0 && invalid.length === 0) return loaded;
  const lines = [
    ...missing.map((m) => `  ${m.file}: missing ${m.variables.join(', ')}`),
    ...invalid.map((i) => `  ${i.file}: ${i.problems.join('; ')}`),
  ];
  const variablesFile = workspace.variablesFile(env);
  const advice =
    missing.length > 0
      ? `Add the missing variables to ${variablesFile} (or set them in the process environment) and sync again.`
      : 'Fix the files and sync again.';
  const details: Record<string, JsonValue> = { environment: env, missing, invalid };
  throw new TemplateError(
    missing.length > 0 ? 'TEMPLATE_VARIABLE_MISSING' : 'TEMPLATE_INVALID',
    `Cannot load the templates of environment "${env}":\n${lines.join('\n')}\n${advice}`,
    details,
    { cause: causes.length === 1 ? causes[0] : new AggregateError(causes) },
  );
}
