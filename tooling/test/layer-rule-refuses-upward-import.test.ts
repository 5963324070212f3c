// The layer rule as `pnpm lint` runs it: the real shared config, over small sources placed in
// the real package folders (the files need not exist; the rule reads the package.json above).
import { afterAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { root, startLinter } from './linter.js';

const CHAIN =
  'Imports only point down: base ← domain ← surface ← kit ← app; see docs/architecture.md.';
const linter = startLinter();
afterAll(() => linter.close());

/** The layer-rule messages ESLint reports for `code` written in `file` (relative to the repo). */
async function layerErrors(file: string, code: string, cwd = root): Promise<string[]> {
  const messages = await linter.lint(file, code, cwd);
  // Anything but the layer rule (a parse error, an ignored file) would make a pass meaningless.
  expect(messages.filter((m) => m.ruleId !== 'junction/layers')).toEqual([]);
  return messages.map((m) => m.message);
}

describe('the layer rule refuses imports that point up or sideways', () => {
  it('refuses a base package importing a domain package, saying which way imports go', async () => {
    const errors = await layerErrors(
      'packages/store/src/layer-fixture.ts',
      "import { submitRun } from '@junction/agent-core';\nexport const f = submitRun;\n",
    );
    expect(errors).toEqual([
      `@junction/store is a base package and may not import @junction/agent-core (domain). ${CHAIN} ` +
        'Move what is needed down a layer, or have the caller pass it in.',
    ]);
  });

  it('refuses a subpath of a package above, as from a base package into @junction/agent-core/runs', async () => {
    const errors = await layerErrors(
      'packages/telemetry/src/layer-fixture.ts',
      "export { runView } from '@junction/agent-core/runs';\n",
    );
    expect(errors).toEqual([
      expect.stringContaining(
        '@junction/telemetry is a base package and may not import @junction/agent-core (domain).',
      ),
    ]);
  });

  it('refuses a surface importing the kit', async () => {
    const errors = await layerErrors(
      'packages/rest-api/src/layer-fixture.ts',
      "import { listen } from '@junction/service-kit';\nexport const f = listen;\n",
    );
    expect(errors).toEqual([
      expect.stringContaining(
        '@junction/rest-api is a surface package and may not import @junction/service-kit (kit).',
      ),
    ]);
  });

  it('refuses a surface importing another surface', async () => {
    const errors = await layerErrors(
      'packages/mcp-server/src/layer-fixture.ts',
      "import type { RestDeps } from '@junction/rest-api';\nexport type T = RestDeps;\n",
    );
    expect(errors).toEqual([
      '@junction/mcp-server is a surface package and may not import @junction/rest-api (surface): ' +
        'surfaces do not import each other; move the shared piece down into a domain or base ' +
        `package, or compose the surfaces in service-kit or an app. ${CHAIN}`,
    ]);
  });

  it('refuses an app importing another app', async () => {
    const errors = await layerErrors(
      'apps/api-server/src/layer-fixture.ts',
      "export async function f(): Promise<unknown> {\n  return import('@junction/cli');\n}\n",
    );
    expect(errors).toEqual([
      '@junction/api-server is an app and may not import @junction/cli (app): an app never imports ' +
        `another app; move the shared code into @junction/service-kit. ${CHAIN}`,
    ]);
  });

  it('refuses express and oclif in a domain package, which stays plain TypeScript', async () => {
    const errors = await layerErrors(
      'packages/agent-core/src/layer-fixture.ts',
      "import express from 'express';\nimport { Command } from '@oclif/core';\nexport const f = [express, Command];\n",
    );
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain(
      '@junction/agent-core is a domain package and stays plain TypeScript: it may not import express.',
    );
    expect(errors[1]).toContain('it may not import @oclif/core.');
  });

  it('refuses a relative import that climbs out of its package, naming the import to use', async () => {
    const errors = await layerErrors(
      'apps/cli/test/layer-fixture.ts',
      "import { startFakeOpenAI } from '../../../tooling/fixtures/fake-openai.mjs';\nexport const f = startFakeOpenAI;\n",
    );
    expect(errors).toEqual([
      'The relative import "../../../tooling/fixtures/fake-openai.mjs" climbs out of @junction/cli ' +
        'into @junction/tooling. Import another package by its name (here ' +
        '"@junction/tooling/fixtures/fake-openai.mjs"), so its exports map and the layer rule apply.',
    ]);
  });

  it('refuses tooling importing a runtime package, and runtime code importing tooling', async () => {
    const fromTooling = await layerErrors(
      'tooling/fixtures/layer-fixture.mjs',
      "export { createStore } from '@junction/store';\n",
    );
    expect(fromTooling).toEqual([
      expect.stringContaining(
        '@junction/tooling is dev tooling (jest preset, eslint config, fixtures)',
      ),
    ]);
    const fromSrc = await layerErrors(
      'packages/webhooks/src/layer-fixture.ts',
      "export { startFakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';\n",
    );
    expect(fromSrc).toEqual([
      expect.stringContaining('@junction/webhooks may not import @junction/tooling from src/'),
    ]);
  });

  it('refuses a @junction package that is not placed in a layer yet', async () => {
    const errors = await layerErrors(
      'apps/cli/src/layer-fixture.ts',
      "export * from '@junction/reports';\n",
    );
    expect(errors).toEqual([
      expect.stringContaining('@junction/reports is not in the layer table'),
    ]);
  });
});

describe('the layer rule lets imports point down', () => {
  it.each([
    ['an app importing the kit', 'apps/cli/src/layer-fixture.ts', '@junction/service-kit'],
    [
      'an app importing a surface',
      'apps/webhook-server/src/layer-fixture.ts',
      '@junction/webhooks',
    ],
    [
      'the kit importing a surface',
      'packages/service-kit/src/layer-fixture.ts',
      '@junction/rest-api',
    ],
    [
      'a surface importing a domain package',
      'packages/mcp-server/src/layer-fixture.ts',
      '@junction/agent-core',
    ],
    [
      'a surface importing a domain subpath',
      'packages/webhooks/src/layer-fixture.ts',
      '@junction/agent-core/runs',
    ],
    [
      'a domain package importing a base package',
      'packages/agent-core/src/layer-fixture.ts',
      '@junction/store',
    ],
    [
      'a test importing tooling fixtures',
      'packages/store/test/layer-fixture.ts',
      '@junction/tooling/fixtures/fake-openai.mjs',
    ],
    ['a surface importing express', 'packages/rest-api/src/layer-fixture.ts', 'express'],
    ['the bench importing a surface', 'bench/execute/layer-fixture.mjs', '@junction/webhooks'],
  ])('passes %s', async (_what, file, specifier) => {
    expect(await layerErrors(file, `export * from '${specifier}';\n`)).toEqual([]);
  });

  it('lets every package import @junction/errors, which itself imports none', async () => {
    const code = "import { JunctionError } from '@junction/errors';\nexport const E = JunctionError;\n";
    expect(await layerErrors('packages/store/src/layer-fixture.ts', code)).toEqual([]);
    expect(await layerErrors('packages/telemetry/src/layer-fixture.ts', code)).toEqual([]);
    expect(await layerErrors('packages/agent-core/src/layer-fixture.ts', code)).toEqual([]);
    expect(
      await layerErrors(
        'packages/errors/src/layer-fixture.ts',
        "import type { Store } from '@junction/store';\nexport type S = Store;\n",
      ),
    ).toEqual([
      '@junction/errors is a base package and may not import @junction/store (base): ' +
        `base packages import no other @junction package but @junction/errors; take what is needed as an argument. ${CHAIN}`,
    ]);
  });

  it('passes relative imports inside a package', async () => {
    const errors = await layerErrors(
      'packages/agent-core/test/layer-fixture.ts',
      "export * from '../src/index.js';\nexport * from './run-harness.js';\n",
    );
    expect(errors).toEqual([]);
  });
});

describe('the layer rule answers the same from any working directory', () => {
  it('refuses the same import whether ESLint runs from the package or the repository root', async () => {
    const file = 'packages/config-templates/src/layer-fixture.ts';
    const code = "import type { Store } from '@junction/store';\nexport type S = Store;\n";
    const fromPackage = await layerErrors(file, code, path.join(root, 'packages/config-templates'));
    const fromRoot = await layerErrors(file, code, root);
    expect(fromPackage).toEqual([
      '@junction/config-templates is a base package and may not import @junction/store (base): ' +
        `base packages import no other @junction package but @junction/errors; take what is needed as an argument. ${CHAIN}`,
    ]);
    expect(fromRoot).toEqual(fromPackage);
  });
});
