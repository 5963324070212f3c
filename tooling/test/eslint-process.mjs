// ESLint with the shared config, in a plain Node process: a test asks it over stdin, one JSON
// line per request ({ id, cwd, file, code }), and reads one JSON line per answer ({ id,
// messages } or { id, error }). ESLint, typescript-eslint and TypeScript load in a few seconds
// here; inside a jest test file's module sandbox they take ten times as long.
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = path.join(root, 'tooling/eslint/eslint.config.js');
/** One ESLint per working directory, as `pnpm lint` would run from there. */
const linters = new Map();

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const { id, cwd, file, code } = JSON.parse(line);
  try {
    let eslint = linters.get(cwd);
    if (!eslint) linters.set(cwd, (eslint = new ESLint({ cwd, overrideConfigFile: config })));
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    const messages = (result?.messages ?? []).map(({ ruleId, message, severity }) => ({
      ruleId,
      message,
      severity,
    }));
    process.stdout.write(`${JSON.stringify({ id, messages })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ id, error: String(err?.stack ?? err) })}\n`);
  }
}
