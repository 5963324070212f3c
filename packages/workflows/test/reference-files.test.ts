// Every example workflow file of the reference implementation (test/fixtures/reference, copied
// verbatim) either validates or is refused as WORKFLOW_INVALID naming the state and the field —
// never a crash. The counts are printed for the issue's note.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { isWorkflowError, parseWorkflow } from '../src/index.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'reference');
const files = readdirSync(dir).filter((f) => f.endsWith('.workflow.yaml'));

describe('the reference implementation example workflow files', () => {
  it('are all found', () => {
    expect(files.length).toBe(19);
  });

  it('each validates, or fails with problems naming the state and field', () => {
    const valid: string[] = [];
    const invalid: Array<{ file: string; problems: unknown }> = [];
    for (const file of files) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      try {
        const model = parseWorkflow(text, file);
        expect(model.graph.states.size).toBeGreaterThan(0);
        valid.push(file);
      } catch (err) {
        if (!isWorkflowError(err, 'WORKFLOW_INVALID')) throw err;
        const problems = err.details.problems as Array<{
          state?: string;
          field: string;
          message: string;
        }>;
        expect(problems.length).toBeGreaterThan(0);
        for (const p of problems) {
          expect(p.field.length).toBeGreaterThan(0);
          expect(p.message.length).toBeGreaterThan(5);
        }
        invalid.push({ file, problems });
      }
    }
    process.stdout.write(
      `reference workflow files: ${valid.length} valid, ${invalid.length} refused\n${invalid
        .map((i) => `  ${i.file}: ${JSON.stringify(i.problems)}`)
        .join('\n')}\n`,
    );
    expect(valid.length + invalid.length).toBe(files.length);
  });
});
