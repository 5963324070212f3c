// Regression (issue 13, item 7): the workspace, config.yaml and variables.yml were created 0644
// (readable by every user of the machine), though they hold keys.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { resolvePaths, Workspace } from '../src/index.js';

const modeOf = (file: string): number => statSync(file).mode & 0o777;

describe('files the workspace creates', () => {
  it('are owner-only: folders 0700, files 0600', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'junction-modes-'));
    const paths = resolvePaths({ XDG_CONFIG_HOME: home });
    const workspace = new Workspace(paths);
    await workspace.init();
    await workspace.createEnvironment('prod');
    await workspace.writeVariables('prod', { GITHUB_TOKEN: 'ghp_example_value_123' });
    expect(modeOf(paths.configHome)).toBe(0o700);
    expect(modeOf(paths.configFile)).toBe(0o600);
    expect(modeOf(workspace.environmentDir('prod'))).toBe(0o700);
    expect(modeOf(workspace.variablesFile('prod'))).toBe(0o600);
    expect(modeOf(workspace.variablesFile('default'))).toBe(0o600);
    rmSync(home, { recursive: true, force: true });
  });
});
