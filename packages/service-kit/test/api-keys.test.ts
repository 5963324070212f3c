import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createKeyCheck, keyMatches, keyRing, presentedKey } from '../src/api-keys.js';

const KEY_ONE = 'jk_live_0123456789abcdef';
const KEY_TWO = 'another-key-with-a-different-length-XYZ';

describe('API keys of the HTTP surfaces', () => {
  it('checks presented keys against every configured one, ignoring empty configured keys', () => {
    const check = createKeyCheck(['jk_one_0123456789', '', 'jk_two']);
    expect(check('jk_one_0123456789')).toBe(true);
    expect(check('jk_two')).toBe(true);
    expect(check('')).toBe(false);
    expect(check('jk_TWO')).toBe(false);
    expect(createKeyCheck([''])('')).toBe(false);
  });

  it('reads a Bearer credential, else X-API-Key; another scheme or an empty key is ""', () => {
    expect(presentedKey({ authorization: 'Bearer  abc ' })).toBe('abc');
    expect(presentedKey({ authorization: 'bearer abc', 'x-api-key': 'other' })).toBe('abc');
    expect(presentedKey({ 'x-api-key': ' k ' })).toBe('k');
    expect(presentedKey({ authorization: 'Basic dXNlcjpwYXNz' })).toBe('');
    expect(presentedKey({ authorization: 'Bearer ' })).toBe('');
    expect(presentedKey({})).toBeUndefined();
  });

  it('holds the keys of a surface: required only when a key is set, X-API-Key only when asked', () => {
    expect(keyRing([]).required).toBe(false);
    expect(keyRing(['', '  ']).required).toBe(false);
    const rest = keyRing(['jk_rest_0123456789']);
    expect(rest.required).toBe(true);
    expect(rest.presented({ 'x-api-key': 'jk_rest_0123456789' })).toBe('jk_rest_0123456789');
    expect(rest.matches('jk_rest_0123456789')).toBe(true);
    expect(rest.matches('jk_rest_012345678')).toBe(false);
    const webhook = keyRing(['whk_0123456789'], { xApiKey: false });
    expect(webhook.presented({ 'x-api-key': 'whk_0123456789' })).toBeUndefined();
    expect(webhook.presented({ authorization: 'Bearer whk_0123456789' })).toBe('whk_0123456789');
    expect(webhook.presented({ authorization: 'Basic abc' })).toBe('');
  });
});

describe('keyMatches', () => {
  const digests = [KEY_ONE, KEY_TWO].map((k) => createHash('sha256').update(k).digest());
  it('matches each configured key, whatever its length, and nothing else', () => {
    expect(keyMatches(KEY_ONE, digests)).toBe(true);
    expect(keyMatches(KEY_TWO, digests)).toBe(true);
    expect(keyMatches('', digests)).toBe(false);
    expect(keyMatches(KEY_ONE.toUpperCase(), digests)).toBe(false);
    expect(keyMatches(`${KEY_TWO}${KEY_ONE}`, digests)).toBe(false);
    expect(keyMatches(KEY_ONE, [])).toBe(false);
  });
});
