// The coding tools when things go wrong: the bus killed mid-task (Junction's own nats-server is
// started again and the task sent again), no nats-server binary, coding not configured on one
// side or the other, and the git token handed over through the key-value bucket.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startFakeCodingBackend,
  type FakeCodingBackend,
} from '@junction/tooling/fixtures/coding/fake-coding-backend.mjs';
import { createCodingTools, type CodingSettings } from '../src/index.js';
import { NatsCodingBackend } from '../src/nats-backend.js';
import {
  call,
  freePort,
  keptLogger,
  makeOrigin,
  makeWorld,
  runContext,
  type World,
  testSettings,
} from './harness.js';

const TOKEN = 'ghp_anotherTokenThatStaysOutOfRecords5678';

function settingsFor(
  port: number,
  dir: string,
  over: Partial<CodingSettings> = {},
): CodingSettings {
  return testSettings(dir, { port, token: TOKEN, taskTimeoutMs: 4_000, maxAttempts: 2, ...over });
}

let world: World;
beforeAll(async () => {
  world = await makeWorld('junction-coding-fail-');
});
afterAll(async () => {
  await world?.store.close();
  rmSync(world.dir, { recursive: true, force: true });
});

describe('the bus killed mid-task', () => {
  let port: number;
  let backend: NatsCodingBackend;
  let fake: FakeCodingBackend;
  const kept = keptLogger();

  beforeAll(async () => {
    port = await freePort();
    backend = new NatsCodingBackend({
      settings: settingsFor(port, world.dir),
      logger: kept.logger,
      storeDir: path.join(world.dir, 'nats-kill'),
    });
    expect((await backend.start()).ok).toBe(true);
    fake = await startFakeCodingBackend({
      natsUrl: `nats://127.0.0.1:${port}`,
      workspaceDir: path.join(world.dir, 'kill-workspaces'),
    });
  }, 180_000);
  afterAll(async () => {
    await fake?.stop();
    await backend?.stop();
  });

  it("restarts Junction's own nats-server and sends the task again; the second send completes", async () => {
    const provider = createCodingTools({
      settings: settingsFor(port, world.dir),
      store: world.store,
      logger: kept.logger,
      backend: async () => backend,
    });
    const { ctx, events } = runContext(world, { enabled: true } as never);
    const t = await provider.tools(ctx);
    const id = (await call(t, 'coding_open', {})).json.session_id as string;
    const bus = await backend.start();
    if (!bus.ok || !bus.embedded) throw new Error('expected an embedded bus');
    const firstPid = bus.embedded.pid;

    const pending = call(t, 'code', {
      session_id: id,
      instruction: 'SLEEP 1500\nWRITE survived.txt: yes',
    });
    await new Promise((r) => setTimeout(r, 400));
    process.kill(firstPid!, 'SIGKILL');
    const coded = await pending;

    expect(coded.isError).toBe(false);
    expect(coded.json.attempts).toBe(2);
    expect(coded.json.files_changed).toEqual(['survived.txt']);
    expect(bus.embedded.pid).not.toBe(firstPid);
    expect(events.some((e) => e.payload.type === 'task_resent')).toBe(true);
    expect(
      kept.lines.some((l) => /nats-server/.test(l.msg) && /restart|exited|died/i.test(l.msg)),
    ).toBe(true);
    await call(t, 'coding_close', { session_id: id });
  }, 180_000);
});

describe('without a bus', () => {
  it('logs Failed to create NATS backend and the tools answer with the reason; the run keeps its tools', async () => {
    const kept = keptLogger();
    const port = await freePort();
    const settings = settingsFor(port, world.dir, {
      nats: {
        ...settingsFor(port, world.dir).nats,
        serverPath: path.join(world.dir, 'no', 'nats-server'),
      },
    });
    const backend = new NatsCodingBackend({
      settings,
      logger: kept.logger,
      storeDir: path.join(world.dir, 'nats-none'),
    });
    const bus = await backend.start();
    expect(bus.ok).toBe(false);
    const line = kept.lines.find((l) => l.msg.startsWith('Failed to create NATS backend'));
    expect(line?.level).toBe('error');
    expect(line?.msg).toMatch(/nats-server/);
    expect(line?.msg).toMatch(/apt-get install nats-server|server_path/);

    const provider = createCodingTools({
      settings,
      store: world.store,
      logger: kept.logger,
      backend: async () => backend,
    });
    const t = await provider.tools(runContext(world, { enabled: true } as never).ctx);
    expect(t).toHaveLength(5);
    const opened = await call(t, 'coding_open', {});
    expect(opened.isError).toBe(true);
    expect(opened.text).toContain('Failed to create NATS backend');
    await backend.stop();
  });
});

describe('Coding tools NOT enabled', () => {
  const provider = (enabled: boolean) => {
    const kept = keptLogger();
    const p = createCodingTools({
      settings: { ...settingsFor(4222, '/tmp'), enabled },
      store: world.store,
      logger: kept.logger,
      backend: async () => {
        throw new Error('no backend is made for an agent without coding tools');
      },
    });
    return { p, kept };
  };

  it('says why when config.yaml has no coding section but the agent asks, once per agent', async () => {
    const { p, kept } = provider(false);
    const { ctx } = runContext(world, { enabled: true } as never);
    expect(await p.tools(ctx)).toEqual([]);
    expect(await p.tools(ctx)).toEqual([]);
    const lines = kept.lines.filter((l) => l.msg.startsWith('Coding tools NOT enabled'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', agent_name: 'coder' });
    expect(lines[0]?.msg).toContain('config.yaml has no coding section');
  });

  it('says why when the agent file does not set coding.enabled', async () => {
    const { p, kept } = provider(true);
    expect(await p.tools(runContext(world, undefined).ctx)).toEqual([]);
    const line = kept.lines.find((l) => l.msg.startsWith('Coding tools NOT enabled'));
    expect(line?.msg).toContain('does not set coding.enabled: true');
  });
});

describe('the git token through the key-value bucket (coding.git.token_from_kv)', () => {
  it('puts the token in opencode-state and sends only its key; the backend clones with it', async () => {
    const kept = keptLogger();
    const port = await freePort();
    const settings = settingsFor(port, world.dir, {
      git: { token: TOKEN, tokenSource: 'test', fromKv: true },
    });
    const backend = new NatsCodingBackend({
      settings,
      logger: kept.logger,
      storeDir: path.join(world.dir, 'nats-kv'),
    });
    expect((await backend.start()).ok).toBe(true);
    const fake = await startFakeCodingBackend({
      natsUrl: `nats://127.0.0.1:${port}`,
      workspaceDir: path.join(world.dir, 'kv-workspaces'),
    });
    try {
      const origin = makeOrigin(path.join(world.dir));
      const provider = createCodingTools({
        settings,
        store: world.store,
        logger: kept.logger,
        backend: async () => backend,
      });
      const t = await provider.tools(runContext(world, { enabled: true } as never).ctx);
      const opened = await call(t, 'coding_open', { repo_url: origin });
      expect(opened.isError).toBe(false);
      const task = fake.tasks.at(-1)!;
      expect(task.hasToken).toBe(false);
      expect(task.workspace.git?.tokenFromKV).toBe(`git-token.${opened.json.session_id as string}`);
      expect(JSON.stringify(fake.tasks)).not.toContain(TOKEN);
      await call(t, 'coding_close', { session_id: opened.json.session_id });
    } finally {
      await fake.stop();
      await backend.stop();
    }
  }, 180_000);
});
