import { describe, it, expect } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempConfigHome } from './run-cli.js';

describe('junction CLI skeleton', () => {
  it('prints its version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const r = runCli(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`junction/${pkg.version} `);
    expect(r.stdout).not.toContain('@junction/cli');
  });

  it('lists its commands in --help', () => {
    const r = runCli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('init');
    expect(r.stdout).toContain('env');
  });

  it('init creates the workspace, the store and the default environment', () => {
    const home = tempConfigHome();
    const r = runCli(['init'], { XDG_CONFIG_HOME: home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const ws = path.join(home, 'junction');
    expect(existsSync(path.join(ws, 'config.yaml'))).toBe(true);
    expect(existsSync(path.join(ws, 'junction.db'))).toBe(true);
    expect(existsSync(path.join(ws, 'environments', 'default', 'variables.yml'))).toBe(true);
    expect(existsSync(path.join(ws, 'environments', 'default', 'agents', 'assistant.prompt'))).toBe(
      true,
    );
  });

  it('init run twice changes nothing the user edited', () => {
    const home = tempConfigHome();
    expect(runCli(['init'], { XDG_CONFIG_HOME: home }).status).toBe(0);
    const cfg = path.join(home, 'junction', 'config.yaml');
    writeFileSync(cfg, 'log_level: debug\n');
    const again = runCli(['init', '--json'], { XDG_CONFIG_HOME: home });
    expect(again.status).toBe(0);
    const out = JSON.parse(again.stdout) as { created: string[]; existing: string[] };
    expect(out.created).toEqual([]);
    expect(out.existing.length).toBeGreaterThan(0);
    expect(readFileSync(cfg, 'utf8')).toBe('log_level: debug\n');
  });

  it('env list --json prints the default environment', () => {
    const home = tempConfigHome();
    runCli(['init'], { XDG_CONFIG_HOME: home });
    const r = runCli(['env', 'list', '--json'], { XDG_CONFIG_HOME: home });
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      {
        name: 'default',
        agents: 1,
        mcp_configs: 1,
        mcp_servers: 0,
        tools: 0,
        last_synced_at: null,
      },
    ]);
  });

  it('env list prints a table', () => {
    const home = tempConfigHome();
    runCli(['init'], { XDG_CONFIG_HOME: home });
    const r = runCli(['env', 'list'], { XDG_CONFIG_HOME: home });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+AGENTS\s+MCP CONFIGS\s+SERVERS\s+TOOLS\s+LAST SYNC$/m);
    expect(r.stdout).toMatch(/^default\s+1\s+1\s+0\s+0\s+never$/m);
  });

  it('env list before init says how to start', () => {
    const r = runCli(['env', 'list'], { XDG_CONFIG_HOME: tempConfigHome() });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('junction init');
  });

  it('a bad config file is an error naming the file and the key, exit 3', () => {
    const home = tempConfigHome();
    runCli(['init'], { XDG_CONFIG_HOME: home });
    const cfg = path.join(home, 'junction', 'config.yaml');
    writeFileSync(cfg, 'log_level: loud\n');
    const r = runCli(['env', 'list'], { XDG_CONFIG_HOME: home });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(cfg);
    expect(r.stderr).toContain('log_level');
    expect(r.stdout).toBe('');
  });

  it('a bad env override is an error naming the variable, exit 3, JSON with --json', () => {
    const home = tempConfigHome();
    const r = runCli(['env', 'list', '--json'], {
      XDG_CONFIG_HOME: home,
      JUNCTION_LOG_FORMAT: 'xml',
    });
    expect(r.status).toBe(3);
    const body = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('CONFIG_INVALID');
    expect(body.error.message).toContain('JUNCTION_LOG_FORMAT');
  });

  it('an unknown command exits non-zero', () => {
    const r = runCli(['nope']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('nope');
  });
});
