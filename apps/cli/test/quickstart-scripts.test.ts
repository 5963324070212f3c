// The quick start's own steps (scripts/lib.sh), issue 16: `junction` goes on the PATH by a shim
// it says it writes and never over someone else's file; without a pnpm 10 on the PATH, pnpm
// goes into the folder's .tools/, not the machine.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runAsync } from './run-cli.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const lib = path.join(repo, 'scripts/lib.sh');
const version = (
  JSON.parse(readFileSync(path.join(repo, 'apps/cli/package.json'), 'utf8')) as {
    version: string;
  }
).version;
const temps: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-qs-'));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `steps` in bash after sourcing scripts/lib.sh, in `cwd`, with HOME and PATH given;
 * killed after `ms` (a download may take a while).
 */
function bash(steps: string, env: NodeJS.ProcessEnv, cwd = repo, ms = 60_000) {
  return runAsync('bash', ['-c', `cd '${cwd}' && source '${lib}' && ${steps}`], env, ms);
}

describe('link_cli', () => {
  it('writes ~/.local/bin/junction, says so and how to remove it; it runs the CLI from anywhere', async () => {
    const home = temp();
    const linked = await bash('link_cli', { HOME: home });
    expect(linked.status).toBe(0);
    const shim = path.join(home, '.local/bin/junction');
    expect(linked.stderr).toContain(`linked ${shim}`);
    expect(linked.stderr).toContain(`rm ${shim}`);
    expect(linked.stderr).toContain('is not on your PATH');
    // A new shell in another folder, with the shim's folder on its PATH.
    const elsewhere = temp();
    const run = await runAsync('bash', ['-c', `cd '${elsewhere}' && junction --version`], {
      HOME: home,
      PATH: `${path.dirname(shim)}:${process.env.PATH}`,
      XDG_CONFIG_HOME: temp(),
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`junction/${version} `);
    // Linking again rewrites our own shim.
    expect((await bash('link_cli', { HOME: home })).status).toBe(0);
  });

  it('never replaces a junction it did not write, and JUNCTION_NO_LINK skips it', async () => {
    const home = temp();
    const shim = path.join(home, '.local/bin/junction');
    mkdirSync(path.dirname(shim), { recursive: true });
    writeFileSync(shim, '#!/bin/sh\necho mine\n');
    const kept = await bash('link_cli', { HOME: home });
    expect(kept.stderr).toContain('is not ours: left as it is');
    expect(readFileSync(shim, 'utf8')).toBe('#!/bin/sh\necho mine\n');
    const other = temp();
    const skipped = await bash('link_cli', { HOME: other, JUNCTION_NO_LINK: '1' });
    expect(skipped.stderr).toContain('not linking junction');
    expect(() => readFileSync(path.join(other, '.local/bin/junction'))).toThrow();
  });
});

describe('ensure_pnpm', () => {
  it('uses a pnpm 10 already on the PATH, saying which', async () => {
    const found = await bash('ensure_pnpm && "${PNPM[@]}" --version', { HOME: temp() });
    expect(found.status).toBe(0);
    expect(found.stderr).toMatch(/using pnpm 10\.\d+\.\d+ from \//);
    expect(found.stdout.trim()).toMatch(/^10\./);
  });

  it('without one, installs the pinned pnpm into ./.tools only', async () => {
    // The machine's PATH without pnpm: every command of /usr/bin but pnpm and pnpx.
    const bin = temp();
    for (const tool of readdirSync('/usr/bin')) {
      if (tool !== 'pnpm' && tool !== 'pnpx')
        symlinkSync(path.join('/usr/bin', tool), path.join(bin, tool));
    }
    const folder = temp();
    const home = temp();
    // npm's own cache (a fresh HOME would download pnpm again, which only costs time).
    const cache = process.env.npm_config_cache ?? path.join(os.homedir(), '.npm');
    // The user's own npm settings (registry, CA, proxy) stay theirs under the fresh HOME.
    const userconfig = process.env.npm_config_userconfig ?? path.join(os.homedir(), '.npmrc');
    const result = await bash(
      'ensure_pnpm && "${PNPM[@]}" --version',
      {
        HOME: home,
        PATH: bin,
        npm_config_cache: cache,
        ...(existsSync(userconfig) ? { npm_config_userconfig: userconfig } : {}),
      },
      folder,
      170_000,
    );
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('installing pnpm@10.34.8 into ./.tools');
    expect(result.stderr).toContain('rm -rf .tools');
    expect(result.stdout.trim()).toBe('10.34.8');
    expect(
      readFileSync(path.join(folder, '.tools/node_modules/pnpm/package.json'), 'utf8'),
    ).toContain('"version": "10.34.8"');
  }, 180_000);
});
