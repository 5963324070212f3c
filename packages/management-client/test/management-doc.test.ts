// docs/management.md's examples are real: each config.yaml example loads and means what the page
// says, and the fake platform command it shows starts.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { managementSettings, ManagementClientError, saveLogin } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const doc = readFileSync(path.join(root, 'docs/management.md'), 'utf8');
const yaml = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
const sh = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const home = mkdtempSync(path.join(os.tmpdir(), 'junction-mgmt-doc-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function load(text: string) {
  const env = { XDG_CONFIG_HOME: home, HOME: home };
  const paths = resolvePaths(env);
  mkdirSync(paths.configHome, { recursive: true });
  writeFileSync(paths.configFile, text);
  return { config: loadConfig({ env, paths }), configHome: paths.configHome };
}

describe('docs/management.md', () => {
  it('has the three config examples the page walks through', () => {
    expect(yaml).toHaveLength(3);
  });

  it('the first turns the station on with a configured key that wins over a stored one', () => {
    const { config, configHome } = load(yaml[0]!);
    saveLogin(configHome, { api_key: 'stored-key-1234567', endpoint: 'x:443', saved_at: 'now' });
    const s = managementSettings(config, { configHome });
    expect(s).toMatchObject({
      endpoint: 'lighthouse.example.com:443',
      useTls: true,
      key: 'reg-0123456789abcdef',
      keySource: 'config',
      name: 'station-eu-1',
      tags: ['prod', 'eu'],
    });
    // Without a configured key, the stored one is used.
    const { config: bare } = load(yaml[0]!.replace(/ {2}registration_key:.*\n/, ''));
    expect(managementSettings(bare, { configHome })).toMatchObject({
      key: 'stored-key-1234567',
      keySource: 'login',
    });
  });

  it('the private-platform example reads its CA file relative to the workspace', () => {
    const { config, configHome } = load(yaml[1]!);
    expect(() => managementSettings(config, { configHome })).toThrow(ManagementClientError);
    expect(() => managementSettings(config, { configHome })).toThrow(
      `management.ca_file ${path.join(configHome, 'certs/platform-ca.pem')} cannot be read`,
    );
    mkdirSync(path.join(configHome, 'certs'), { recursive: true });
    writeFileSync(path.join(configHome, 'certs/platform-ca.pem'), 'PEM');
    expect(managementSettings(config, { configHome })).toMatchObject({
      endpoint: 'platform.lab.internal:8443',
      ca: Buffer.from('PEM'),
    });
  });

  it('the OAuth example derives the platform URLs from base_url', () => {
    const { config } = load(yaml[2]!);
    expect(config.management.oauth).toMatchObject({
      enabled: true,
      client_id: 'junction-mcp',
      scopes: ['mcp'],
      auth_url: 'https://platform.example.com/oauth/authorize/',
      token_url: 'https://platform.example.com/oauth/token/',
      introspect_url: 'https://platform.example.com/oauth/introspect/',
    });
  });

  it('the fake platform command it shows starts', async () => {
    const line = sh.flatMap((b) => b.split('\n')).find((l) => l.includes('fake-platform.mjs'))!;
    const args = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map((a) => (a === '7443' ? '0' : a));
    const child = spawn(process.execPath, args, { cwd: root });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect(JSON.parse(first.split('\n')[0]!)).toMatchObject({ port: expect.any(Number) });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
