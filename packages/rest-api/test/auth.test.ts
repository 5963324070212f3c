import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  expectError,
  postJson,
  startServer,
  validatorFor,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

const KEY_ONE = 'jk_live_0123456789abcdef';
const KEY_TWO = 'another-key-with-a-different-length-XYZ';

let s: TestServer;
let doc: OpenApiValidator;

beforeAll(async () => {
  s = await startServer({ apiKeys: [KEY_ONE, KEY_TWO] });
  doc = await validatorFor(s, { authorization: `Bearer ${KEY_ONE}` });
});
afterAll(async () => {
  await s.close();
});

describe('API keys', () => {
  it('answers 401 API_KEY_MISSING with WWW-Authenticate: Bearer when no key is sent', async () => {
    const answer = await call(`${s.url}/api/v1/agents`);
    const error = expectError(answer, 401, 'API_KEY_MISSING');
    doc.expectDocumented('get', '/api/v1/agents', answer);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="junction"');
    expect(error.message).toBe(
      'This API requires a key: send "Authorization: Bearer <key>" (or "X-API-Key: <key>") with a key from api.keys in config.yaml or JUNCTION_API_KEY.',
    );
  });

  it.each([
    ['a wrong bearer key', { authorization: 'Bearer jk_live_wrong' }],
    ['a prefix of a real key', { authorization: `Bearer ${KEY_ONE.slice(0, -1)}` }],
    ['a real key with a suffix', { authorization: `Bearer ${KEY_ONE}x` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    [
      'another scheme',
      { authorization: `Basic ${Buffer.from(`u:${KEY_ONE}`).toString('base64')}` },
    ],
    ['a wrong X-API-Key', { 'x-api-key': 'nope' }],
  ])('answers 401 API_KEY_INVALID for %s', async (_what, headers) => {
    const answer = await call(`${s.url}/api/v1/runs`, { headers });
    expectError(answer, 401, 'API_KEY_INVALID');
    doc.expectDocumented('get', '/api/v1/runs', answer);
    expect(answer.headers.get('www-authenticate')).toBe(
      'Bearer realm="junction", error="invalid_token"',
    );
    expect(answer.text).not.toContain(KEY_ONE);
  });

  it.each([
    ['Authorization: Bearer (first key)', { authorization: `Bearer ${KEY_ONE}` }],
    ['Authorization: bearer (second key, any case)', { authorization: `bearer ${KEY_TWO}` }],
    ['X-API-Key', { 'x-api-key': KEY_TWO }],
    [
      'X-API-Key beside a Basic header (a proxy login)',
      { authorization: 'Basic dTpw', 'x-api-key': KEY_ONE },
    ],
  ])('admits %s', async (_what, headers) => {
    const answer = await call(`${s.url}/api/v1/agents`, { headers });
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', '/api/v1/agents', answer);
  });

  it('queues nothing for a POST without a valid key', async () => {
    const before = await s.runCount();
    const missing = await postJson(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, {
      task: 'x',
    });
    expectError(missing, 401, 'API_KEY_MISSING');
    doc.expectDocumented('post', '/api/v1/agents/{agent_id}/queue', missing);
    const wrong = await postJson(
      `${s.url}/api/v1/agents/${s.seed.triage.id}/queue`,
      { task: 'x' },
      { authorization: 'Bearer wrong' },
    );
    expectError(wrong, 401, 'API_KEY_INVALID');
    expect(await s.runCount()).toBe(before);
    const ok = await postJson(
      `${s.url}/api/v1/agents/${s.seed.triage.id}/queue`,
      { task: 'x' },
      { 'x-api-key': KEY_ONE },
    );
    expect(ok.status).toBe(202);
    expect(await s.runCount()).toBe(before + 1);
  });

  it('leaves /health open, protects /metrics and the OpenAPI document', async () => {
    const health = await call(`${s.url}/health`);
    expect(health.status).toBe(200);
    doc.expectDocumented('get', '/health', health);
    expect((await call(`${s.url}/health/`)).status).toBe(200);
    expectError(await call(`${s.url}/metrics`), 401, 'API_KEY_MISSING');
    expect((await call(`${s.url}/metrics`, { headers: { 'x-api-key': KEY_ONE } })).status).toBe(
      200,
    );
    expectError(await call(`${s.url}/api/v1/openapi.json`), 401, 'API_KEY_MISSING');
  });

  it('declares the security schemes in the document, with none on /health', () => {
    expect(doc.doc.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(doc.operation('get', '/health').security).toEqual([]);
    expect(doc.operation('get', '/metrics').security).toBeUndefined();
    expect(Object.keys(doc.operation('get', '/health').responses as object)).not.toContain('401');
  });

  it('checks the key before telling whether a route exists', async () => {
    expectError(await call(`${s.url}/api/v1/secrets`), 401, 'API_KEY_MISSING');
    expectError(
      await call(`${s.url}/api/v1/secrets`, { headers: { authorization: `Bearer ${KEY_ONE}` } }),
      404,
      'ROUTE_NOT_FOUND',
    );
  });
});
