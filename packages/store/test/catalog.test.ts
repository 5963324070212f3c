import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Store } from '../src/index.js';
import { openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

describe.each(STORE_KINDS)('catalog repositories on %s', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;

  beforeEach(async () => {
    ({ store, close } = await openTestStore(kind));
  });
  afterEach(async () => {
    await close();
  });

  it('creates, finds, updates and deletes environments', async () => {
    const dev = await store.environments.create({ name: 'development', description: 'local' });
    expect(dev).toMatchObject({ name: 'development', description: 'local', lastSyncedAt: null });
    expect(dev.createdAt).toBeInstanceOf(Date);
    expect(await store.environments.get(dev.id)).toEqual(dev);
    expect(await store.environments.getByName('development')).toEqual(dev);

    await expect(store.environments.create({ name: 'development' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });

    const synced = await store.environments.markSynced(dev.id, new Date(1_700_000_000_000));
    expect(synced.lastSyncedAt?.getTime()).toBe(1_700_000_000_000);
    expect(synced.description).toBe('local');

    await expect(store.environments.update(999, { description: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await store.environments.delete(dev.id)).toBe(true);
    expect(await store.environments.delete(dev.id)).toBe(false);
  });

  it('ensure() gets or creates by name and is stable', async () => {
    const first = await store.environments.ensure('production');
    const second = await store.environments.ensure('production');
    expect(second.id).toBe(first.id);
    expect((await store.environments.list()).map((e) => e.name)).toEqual(['production']);
  });

  it('listWithCounts() counts agents, configs, servers and tools per environment', async () => {
    const dev = await store.environments.ensure('development');
    const prod = await store.environments.ensure('production');
    const config = await store.mcpConfigs.upsert(dev.id, { name: 'fs', path: '/w/dev/fs.json' });
    const fs = await store.mcpServers.upsert(dev.id, {
      name: 'filesystem',
      transport: 'stdio',
      configId: config.id,
      command: 'npx',
    });
    const web = await store.mcpServers.upsert(dev.id, {
      name: 'web',
      transport: 'http',
      configId: config.id,
      url: 'http://x/mcp',
    });
    await store.tools.replaceForServer(fs.id, [{ name: 'read_file' }, { name: 'write_file' }]);
    await store.tools.replaceForServer(web.id, [{ name: 'fetch' }]);
    await store.agents.create(dev.id, { name: 'a' });
    await store.agents.create(dev.id, { name: 'b' });
    await store.agents.create(prod.id, { name: 'a' });
    await store.environments.markSynced(dev.id, new Date(1_000));

    expect(await store.environments.listWithCounts()).toEqual([
      {
        id: dev.id,
        name: 'development',
        agents: 2,
        mcpConfigs: 1,
        servers: 2,
        tools: 3,
        lastSyncedAt: new Date(1_000),
      },
      {
        id: prod.id,
        name: 'production',
        agents: 1,
        mcpConfigs: 0,
        servers: 0,
        tools: 0,
        lastSyncedAt: null,
      },
    ]);
  });

  it('upserts MCP configs and servers by name, keeping ids, and drops stale ones', async () => {
    const env = await store.environments.ensure('development');
    const c1 = await store.mcpConfigs.upsert(env.id, {
      name: 'fs',
      path: '/a.json',
      templateHash: 'h1',
    });
    const c1again = await store.mcpConfigs.upsert(env.id, {
      name: 'fs',
      path: '/a.json',
      templateHash: 'h2',
    });
    expect(c1again.id).toBe(c1.id);
    expect(c1again.templateHash).toBe('h2');
    const failed = await store.mcpConfigs.setStatus(c1.id, 'error', 'missing variable TOKEN');
    expect(failed).toMatchObject({ status: 'error', lastError: 'missing variable TOKEN' });
    const ok = await store.mcpConfigs.setStatus(c1.id, 'synced');
    expect(ok.lastError).toBeNull();
    expect(ok.lastSyncedAt).toBeInstanceOf(Date);

    const server = await store.mcpServers.upsert(env.id, {
      name: 'filesystem',
      transport: 'stdio',
      configId: c1.id,
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { DEBUG: '1' },
    });
    expect(server).toMatchObject({
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { DEBUG: '1' },
      headers: {},
      status: 'pending',
    });
    const moved = await store.mcpServers.upsert(env.id, {
      name: 'filesystem',
      transport: 'http',
      configId: c1.id,
      url: 'http://localhost:9/mcp',
      headers: { Authorization: 'Bearer t' },
    });
    expect(moved.id).toBe(server.id);
    expect(moved).toMatchObject({
      transport: 'http',
      command: null,
      args: [],
      headers: { Authorization: 'Bearer t' },
    });
    expect((await store.mcpServers.setStatus(server.id, 'connected')).status).toBe('connected');
    expect(await store.mcpServers.count({ status: 'connected' })).toBe(1);
    expect(await store.mcpServers.getByName(env.id, 'filesystem')).toMatchObject({ id: server.id });

    const c2 = await store.mcpConfigs.upsert(env.id, { name: 'gone', path: '/b.json' });
    expect(await store.mcpConfigs.deleteExcept(env.id, ['fs'])).toBe(1);
    expect(await store.mcpConfigs.get(c2.id)).toBeUndefined();
    expect((await store.mcpConfigs.list({ environmentId: env.id })).map((c) => c.name)).toEqual([
      'fs',
    ]);

    // Deleting the config takes its servers with it.
    await store.mcpConfigs.delete(c1.id);
    expect(await store.mcpServers.list({ environmentId: env.id })).toEqual([]);
  });

  it('replaces a server tool list while keeping ids and agent bindings of tools that stay', async () => {
    const env = await store.environments.ensure('development');
    const server = await store.mcpServers.upsert(env.id, {
      name: 'fs',
      transport: 'stdio',
      command: 'fs-server',
    });
    const first = await store.tools.replaceForServer(server.id, [
      {
        name: 'read_file',
        description: 'Read a file',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'delete_file' },
    ]);
    const read = first.find((t) => t.name === 'read_file');
    const del = first.find((t) => t.name === 'delete_file');
    expect(read?.inputSchema).toEqual({ type: 'object', properties: { path: { type: 'string' } } });

    const agent = await store.agents.create(env.id, { name: 'helper' });
    await store.agents.setToolIds(agent.id, [read?.id ?? 0, del?.id ?? 0]);

    const second = await store.tools.replaceForServer(server.id, [
      { name: 'read_file', description: 'Read a UTF-8 file' },
      { name: 'list_dir' },
    ]);
    expect(second.map((t) => t.name)).toEqual(['list_dir', 'read_file']);
    expect(second.find((t) => t.name === 'read_file')?.id).toBe(read?.id);
    expect(await store.agents.getToolIds(agent.id)).toEqual([read?.id]);

    const listed = await store.tools.list({ environmentId: env.id, query: 'utf-8' });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'read_file', serverName: 'fs', environmentId: env.id });
    expect(await store.tools.list({ query: '%' })).toEqual([]);
    expect(await store.tools.count({ serverId: server.id })).toBe(2);
    expect(await store.tools.getByName(server.id, 'list_dir')).toMatchObject({ description: '' });

    await expect(store.tools.replaceForServer(12345, [])).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('stores agents with JSON front matter and binds tools and sub-agents', async () => {
    const env = await store.environments.ensure('development');
    const agent = await store.agents.create(env.id, {
      name: 'coder',
      description: 'Writes code',
      model: 'openai/gpt-4o-mini',
      maxSteps: 25,
      promptPath: 'agents/coder.prompt',
      frontMatter: { metadata: { name: 'coder' }, coding: { enabled: true } },
      codingEnabled: true,
      codingBackend: 'opencode-nats',
      scheduleCron: '0 * * * *',
      scheduleVariables: { REPO: 'x' },
    });
    expect(agent).toMatchObject({
      maxSteps: 25,
      codingEnabled: true,
      scheduleEnabled: false,
      frontMatter: { metadata: { name: 'coder' }, coding: { enabled: true } },
      scheduleVariables: { REPO: 'x' },
    });
    await expect(store.agents.create(env.id, { name: 'coder' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });

    const helper = await store.agents.create(env.id, { name: 'helper' });
    await store.agents.setSubAgentIds(agent.id, [helper.id, helper.id]);
    expect(await store.agents.getSubAgentIds(agent.id)).toEqual([helper.id]);
    expect((await store.agents.listSubAgents(agent.id)).map((a) => a.name)).toEqual(['helper']);
    await expect(store.agents.setSubAgentIds(agent.id, [agent.id])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(store.agents.setSubAgentIds(agent.id, [9999])).rejects.toMatchObject({
      code: 'INVALID_REFERENCE',
    });
    // The failed batch rolled back: the previous binding is intact.
    expect(await store.agents.getSubAgentIds(agent.id)).toEqual([helper.id]);
    await expect(store.agents.setToolIds(4242, [])).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const server = await store.mcpServers.upsert(env.id, {
      name: 's',
      transport: 'stdio',
      command: 'x',
    });
    const [t1] = await store.tools.replaceForServer(server.id, [{ name: 't1' }]);
    await store.agents.setToolIds(agent.id, [t1?.id ?? 0]);
    expect((await store.agents.listTools(agent.id)).map((t) => t.name)).toEqual(['t1']);
    await store.agents.setToolIds(agent.id, []);
    expect(await store.agents.getToolIds(agent.id)).toEqual([]);

    const updated = await store.agents.update(agent.id, { maxSteps: 10, model: null });
    expect(updated).toMatchObject({ maxSteps: 10, model: null, description: 'Writes code' });
    const upserted = await store.agents.upsert(env.id, {
      name: 'coder',
      description: 'Writes more code',
    });
    expect(upserted).toMatchObject({ id: agent.id, description: 'Writes more code', maxSteps: 10 });

    expect(
      (await store.agents.list({ environmentName: 'development' })).map((a) => a.name),
    ).toEqual(['coder', 'helper']);
    expect(await store.agents.count({ environmentId: env.id })).toBe(2);
    const page = await store.agents.listSummaries({ environmentName: 'development', limit: 1 });
    expect(page.total).toBe(2);
    expect(page.items).toEqual([
      expect.objectContaining({ name: 'coder', environmentName: 'development', maxSteps: 10 }),
    ]);
    expect(
      (await store.agents.listSummaries({ environmentId: env.id, limit: 1, offset: 1 })).items,
    ).toEqual([expect.objectContaining({ name: 'helper' })]);
    // Past the end: no rows, the total still right.
    expect(await store.agents.listSummaries({ environmentId: env.id, offset: 5 })).toEqual({
      items: [],
      total: 2,
    });
    expect(await store.agents.listSummaries({ environmentName: 'nowhere' })).toEqual({
      items: [],
      total: 0,
    });
    expect(await store.agents.getByName(env.id, 'helper')).toMatchObject({ id: helper.id });

    // Deleting the sub-agent removes the binding, not the parent.
    await store.agents.delete(helper.id);
    expect(await store.agents.getSubAgentIds(agent.id)).toEqual([]);
    expect(await store.agents.deleteExcept(env.id, [])).toBe(1);
  });

  it('cascades an environment delete to everything under it', async () => {
    const env = await store.environments.ensure('scratch');
    const server = await store.mcpServers.upsert(env.id, {
      name: 's',
      transport: 'stdio',
      command: 'x',
    });
    await store.tools.replaceForServer(server.id, [{ name: 't' }]);
    await store.agents.create(env.id, { name: 'a' });
    await store.workflows.upsert(env.id, { workflowId: 'wf', name: 'WF', definition: {} });
    await store.environments.delete(env.id);
    expect(await store.tools.count()).toBe(0);
    expect(await store.agents.count()).toBe(0);
    expect(await store.workflows.list()).toEqual([]);
  });
});
