// Functions a person can hold in their head (issue 33 §5): `pnpm lint` warns at a function past
// 120 lines and fails past 200 (blank lines and comments not counted), in every package's
// sources; config-schema.ts, one literal of settings, is exempt; tests are not counted.
import { afterAll, describe, expect, it } from '@jest/globals';
import { startLinter, type LintMessage } from './linter.js';

const linter = startLinter();
afterAll(() => linter.close());

/** A function `lines` lines long (blank lines and comments between its steps not counted). */
function functionOf(lines: number): string {
  const body = Array.from(
    { length: lines - 4 },
    (_v, i) => `  total += ${i};\n\n  // step ${i}`,
  ).join('\n');
  return `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

/** The length findings (rule and severity) of `code` written in `file`. */
async function lengthFindings(file: string, code: string): Promise<Array<[string, number]>> {
  const messages: LintMessage[] = await linter.lint(file, code);
  expect(
    messages.filter((m) => !/function-length|max-lines-per-function/.test(m.ruleId ?? '')),
  ).toEqual([]);
  return messages.map((m) => [m.ruleId ?? '', m.severity]);
}

describe('the function length rule', () => {
  it('says nothing up to 120 lines, however many blank lines and comments', async () => {
    expect(await lengthFindings('packages/store/src/length-fixture.ts', functionOf(120))).toEqual(
      [],
    );
  });

  it('warns past 120 lines and fails past 200', async () => {
    expect(await lengthFindings('packages/store/src/length-fixture.ts', functionOf(121))).toEqual([
      ['max-lines-per-function', 1],
    ]);
    expect(await lengthFindings('apps/cli/src/length-fixture.ts', functionOf(201))).toEqual([
      ['max-lines-per-function', 1],
      ['size/function-length', 2],
    ]);
  });

  it('exempts the config schema and tests', async () => {
    expect(
      await lengthFindings('packages/config-templates/src/config-schema.ts', functionOf(400)),
    ).toEqual([]);
    expect(
      await lengthFindings('packages/store/test/length-fixture.test.ts', functionOf(400)),
    ).toEqual([]);
  });
});
