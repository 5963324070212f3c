// notifications.signing_secret through the real CLI: `config show` says only [set], and a
// malformed secret stops `junction serve` at start with what is wrong — never the secret itself.
import { afterAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const GOOD = `whsec_${Buffer.alloc(32, 0x61).toString('base64')}`;
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = tempConfigHome();
  homes.push(dir);
  return dir;
}

describe('JUNCTION_WEBHOOK_SIGNING_SECRET', () => {
  it('config show: [set] from env, the value never printed', async () => {
    const result = await runCliAsync(['config', 'show'], {
      XDG_CONFIG_HOME: home(),
      JUNCTION_WEBHOOK_SIGNING_SECRET: GOOD,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^notifications\.signing_secret\s+\[set\]\s+env$/m);
    expect(result.stdout + result.stderr).not.toContain(GOOD.slice('whsec_'.length));
  }, 180_000);

  it('serve refuses a malformed secret at start: exit 3, CONFIG_INVALID, the secret unprinted', async () => {
    const bad = 'this-is-not-a-whsec-secret-1234567890';
    const result = await runCliAsync(['serve'], {
      XDG_CONFIG_HOME: home(),
      JUNCTION_WEBHOOK_SIGNING_SECRET: bad,
    });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('Error [CONFIG_INVALID]');
    expect(result.stderr).toContain(
      'environment variable JUNCTION_WEBHOOK_SIGNING_SECRET (notifications.signing_secret): not a valid signing secret: it does not start with "whsec_"',
    );
    expect(result.stderr + result.stdout).not.toContain(bad);
  }, 180_000);
});
