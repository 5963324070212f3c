// Regression (issue 13, item 12): a model name with a line break (or a terminal escape) broke
// every table the CLI prints.
import { describe, expect, it } from '@jest/globals';
import { formatTable } from '../src/table.js';

describe('CLI tables', () => {
  it('print control characters as escapes, one row per line', () => {
    const table = formatTable(
      ['NAME', 'MODEL'],
      [
        ['assistant', 'a\nb: c'],
        ['red', 'openai/gpt\u001b[31m'],
      ],
    );
    expect(table.split('\n')).toEqual([
      'NAME       MODEL',
      'assistant  a\\nb: c',
      'red        openai/gpt\\u001b[31m',
    ]);
    expect(table).not.toContain('\u001b');
  });
});
