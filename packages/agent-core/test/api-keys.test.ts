import { describe, expect, it } from '@jest/globals';
import { createKeyCheck, presentedKey } from '../src/index.js';

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
});
