// docs/deploy.md cannot run its Docker examples here, so this keeps them honest: every variable
// it names is one the apps read, every variable the apps read is in its table, and the Compose
// example builds the right Dockerfiles and publishes the right ports.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ENV_OVERRIDES } from '@junction/config-templates';
import { APP_VARIABLES } from '../src/app-settings.js';
import { repoRoot } from './processes.js';

const doc = readFileSync(path.join(repoRoot, 'docs/deploy.md'), 'utf8');
// Variables read outside ENV_OVERRIDES: apiKeysOf reads JUNCTION_API_KEY, resolvePaths XDG_CONFIG_HOME.
const KNOWN = new Set<string>([
  ...ENV_OVERRIDES.map((o) => o.variable),
  ...APP_VARIABLES,
  'JUNCTION_API_KEY',
  'XDG_CONFIG_HOME',
]);
const PROVIDER_KEYS = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
]);

function section(title: string): string {
  const start = doc.indexOf(`## ${title}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

const tableVariables = section('Environment variables')
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));

describe('docs/deploy.md', () => {
  it('lists only variables the apps read', () => {
    expect(tableVariables.length).toBeGreaterThan(10);
    expect(tableVariables.filter((name) => !KNOWN.has(name))).toEqual([]);
  });

  it('lists every variable only the apps read, and every port, host and store variable', () => {
    for (const name of [
      ...APP_VARIABLES,
      'JUNCTION_HOST',
      'JUNCTION_API_PORT',
      'JUNCTION_MCP_PORT',
      'JUNCTION_WEBHOOK_PORT',
      'JUNCTION_DATABASE_URL',
      'JUNCTION_WORKERS',
      'JUNCTION_WEBHOOK_ENABLED',
      'JUNCTION_WEBHOOK_API_KEY',
      'JUNCTION_API_KEY',
    ]) {
      expect(tableVariables).toContain(name);
    }
  });

  it('names only known variables in its shell examples', () => {
    const shell = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
    const named = [
      ...shell.matchAll(/-e ([A-Z][A-Z0-9_]+)/g),
      ...shell.matchAll(/\b([A-Z][A-Z0-9_]+)=/g),
    ].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((name) => !KNOWN.has(name) && !PROVIDER_KEYS.has(name))).toEqual([]);
  });

  it('has a Compose example that builds both Dockerfiles and publishes their ports', () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(section('Docker'))![1]!;
    const compose = parse(block) as {
      services: Record<
        string,
        { build: { dockerfile: string }; environment: Record<string, string>; ports: string[] }
      >;
    };
    const expected: Record<string, { dockerfile: string; ports: string[] }> = {
      api: { dockerfile: 'apps/api-server/Dockerfile', ports: ['8585', '8586'] },
      webhook: { dockerfile: 'apps/webhook-server/Dockerfile', ports: ['8587'] },
    };
    expect(Object.keys(compose.services).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.build.dockerfile).toBe(expected[name]!.dockerfile);
      expect(existsSync(path.join(repoRoot, service.build.dockerfile))).toBe(true);
      expect(service.ports.map((p) => p.split(':').at(-1))).toEqual(expected[name]!.ports);
      // Published on loopback only, as the security section asks.
      for (const p of service.ports) expect(p.startsWith('127.0.0.1:')).toBe(true);
      const unknown = Object.keys(service.environment).filter(
        (v) => !KNOWN.has(v) && !PROVIDER_KEYS.has(v),
      );
      expect(unknown).toEqual([]);
    }
    expect(compose.services.webhook!.environment.JUNCTION_WEBHOOK_ENABLED).toBe('true');
  });
});
