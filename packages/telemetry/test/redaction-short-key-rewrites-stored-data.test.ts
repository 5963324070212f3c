// Regression (issue 13, item 2): a short model key (Ollama's "ollama", vLLM's "EMPTY", a test
// key "x") went into the redactor, so stored answers read `notes.t[REDACTED]t`.
import { describe, expect, it } from '@jest/globals';
import { createRedactor, MIN_SECRET_LENGTH } from '../src/index.js';
import { REDACTED } from '../src/redact.js';

describe('secrets too short to redact safely', () => {
  it('are ignored by every redactor, so ordinary text and values stay as written', () => {
    const redactor = createRedactor(['x', 'EMPTY', 'ollama', '   ']);
    expect(redactor.text('notes.txt from the EMPTY folder, via ollama')).toBe(
      'notes.txt from the EMPTY folder, via ollama',
    );
    expect(redactor.value({ path: 'x/y.txt', mode: 'EMPTY' })).toEqual({
      path: 'x/y.txt',
      mode: 'EMPTY',
    });
    expect(redactor.secrets).toEqual([]);
  });

  it(`still redact every secret of ${MIN_SECRET_LENGTH} characters or more`, () => {
    const redactor = createRedactor(['x', 'sk-abcdef']);
    expect(redactor.text('key sk-abcdef, path x/y')).toBe(`key ${REDACTED}, path x/y`);
  });
});
