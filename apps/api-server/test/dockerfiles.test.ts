// There is no Docker engine in CI: the Dockerfiles are checked by reading them. Each must be a
// multi-stage build on a Node 24 slim base that installs from the frozen lockfile, ships only the
// deployed app, and runs it as a non-root user with a health check and the right ports. What
// the runtime stage ships — the build stage's `pnpm deploy` folder — is made and run by
// two-processes.test.ts.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes.js';

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions in order: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (pending !== '' && line.startsWith('#')) return;
    if (pending === '') start = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      return;
    }
    const full = `${pending}${line}`.trim();
    pending = '';
    const match = /^(\S+)\s*(.*)$/.exec(full)!;
    out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: start });
  });
  expect(pending).toBe('');
  return out;
}

function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      stages.push({
        image: image!,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else {
      expect(stages.length).toBeGreaterThan(0); // only ARG may precede FROM; we use none
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return stages;
}

/** `ENV a=1 b=2` → {a: '1', b: '2'} over all ENV lines of a stage. */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of stage.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const pair of ins.args.split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"|"$/g, '');
    }
  }
  return env;
}

const APPS = [
  { app: 'api-server', ports: ['8585', '8586'], portVariable: 'JUNCTION_API_PORT' },
  { app: 'webhook-server', ports: ['8587'], portVariable: 'JUNCTION_WEBHOOK_PORT' },
];

describe.each(APPS)('apps/$app/Dockerfile', ({ app, ports, portVariable }) => {
  const pkg = `@junction/${app}`;
  const text = readFileSync(path.join(repoRoot, 'apps', app, 'Dockerfile'), 'utf8');
  const instructions = parseDockerfile(text);
  const stages = stagesOf(instructions);
  const build = stages[0]!;
  const runtime = stages.at(-1)!;
  const runs = build.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const final = (keyword: string): Instruction[] =>
    runtime.instructions.filter((i) => i.keyword === keyword);

  it('is a multi-stage build whose every stage is on a Node 24 slim image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      expect(stage.image).toMatch(/^node:24(\.\d+){0,2}-slim(@sha256:[0-9a-f]{64})?$/);
    }
    expect(build.name).toBeDefined();
  });

  it('installs with pnpm 10.34.8 from the frozen lockfile, builds the app, deploys production dependencies only', () => {
    const rootManifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      packageManager: string;
    };
    expect(rootManifest.packageManager).toBe('pnpm@10.34.8');
    expect(runs).toContainEqual(expect.stringMatching(/corepack .*pnpm@10\.34\.8/));
    expect(runs).toContainEqual(expect.stringMatching(/^pnpm install --frozen-lockfile\b/));
    expect(runs).toContainEqual(expect.stringContaining(`pnpm --filter "${pkg}..." build`));
    const deploy = runs.find((r) => r.includes(' deploy '));
    expect(deploy).toMatch(new RegExp(`^pnpm --filter ${pkg} --prod deploy (--legacy )?/out$`));
    // Every file the build stage copies by name exists in the context.
    for (const copy of build.instructions.filter((i) => i.keyword === 'COPY')) {
      const sources = copy.args.split(/\s+/).slice(0, -1);
      for (const source of sources.filter((s) => s !== '.')) {
        expect(existsSync(path.join(repoRoot, source))).toBe(true);
      }
    }
  });

  it('ships only the deployed app into the runtime stage', () => {
    const copies = final('COPY').map((i) => i.args);
    expect(copies).toEqual([`--from=${build.name} /out /app`]);
    expect(final('WORKDIR').map((i) => i.args)).toEqual(['/app']);
    expect(final('RUN').some((i) => /pnpm|npm install/.test(i.args))).toBe(false);
  });

  it('runs as a non-root user, set before CMD and never reset', () => {
    const users = final('USER');
    expect(users.length).toBeGreaterThan(0);
    for (const user of users) expect(user.args).not.toMatch(/^(root|0)(:|$)/);
    const cmd = final('CMD')[0]!;
    expect(users.at(-1)!.line).toBeLessThan(cmd.line);
    expect(users.at(-1)!.args).toBe('node');
  });

  it('binds all interfaces inside the container and exposes the app ports', () => {
    expect(envOf(runtime)).toMatchObject({ JUNCTION_HOST: '0.0.0.0', NODE_ENV: 'production' });
    const exposed = final('EXPOSE').flatMap((i) => i.args.split(/\s+/));
    expect(exposed.sort()).toEqual([...ports].sort());
  });

  it("checks /health with node's fetch on the configured port", () => {
    const checks = final('HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const command = JSON.parse(checks[0]!.args.replace(/^.*?\bCMD\s+/, '')) as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain('fetch(');
    expect(command[2]).toContain('/health');
    expect(command[2]).toContain(`process.env.${portVariable} || ${ports[0]}`);
  });

  it('starts dist/main.js in exec form, the bin of the package', () => {
    const cmds = final('CMD');
    expect(cmds).toHaveLength(1);
    expect(JSON.parse(cmds[0]!.args)).toEqual(['node', 'dist/main.js']);
    const manifest = JSON.parse(
      readFileSync(path.join(repoRoot, 'apps', app, 'package.json'), 'utf8'),
    ) as { bin: Record<string, string>; files: string[] };
    expect(manifest.bin[`junction-${app}`]).toBe('./dist/main.js');
    expect(manifest.files).toContain('dist');
  });
});

describe('.dockerignore', () => {
  it('keeps installs, builds, the git history and local databases out of the build context', () => {
    const lines = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    expect(lines).toEqual(
      expect.arrayContaining(['**/node_modules', '**/dist', '.git', '**/*.db', '**/.env']),
    );
    // The lockfile and the workspace manifest are what the build installs from.
    expect(lines).not.toContain('pnpm-lock.yaml');
    expect(lines).not.toContain('pnpm-workspace.yaml');
  });
});
