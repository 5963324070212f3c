// Regression (issue 13, item 7): the database was created 0644, readable by every user of the
// machine, though it holds resolved tool-server settings in clear.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { openStore } from '../src/index.js';
import { makeTempDir } from './helpers.js';

const modeOf = (file: string): number => fs.statSync(file).mode & 0o777;

describe('a new store file', () => {
  it('is owner-only, and so are its WAL files and a folder made for it', async () => {
    const temp = makeTempDir();
    const file = path.join(temp.dir, 'made', 'junction.db');
    const store = await openStore({ url: file });
    await store.environments.ensure('default');
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(`${file}-wal`)).toBe(0o600);
    expect(modeOf(path.dirname(file))).toBe(0o700);
    await store.close();
    temp.cleanup();
  });
});
