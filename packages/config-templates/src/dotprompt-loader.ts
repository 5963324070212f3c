// dotprompt (and Handlebars under it, ~30 modules) is loaded on first use, not when the package
// is imported: a command that reads the config or lists files (`junction env list`) never parses
// or renders a prompt, and should not pay for the prompt machinery at start.

import type * as dotprompt from 'dotprompt';

type DotpromptModule = typeof dotprompt;

let loading: Promise<DotpromptModule> | undefined;

/** The dotprompt module, imported once on the first call. */
export function loadDotprompt(): Promise<DotpromptModule> {
  loading ??= import('dotprompt');
  return loading;
}
