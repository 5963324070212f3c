import { Flags } from '@oclif/core';

/** `--env`: the environment a command works in. */
export const envFlag = Flags.string({
  char: 'e',
  description: 'environment to use',
  default: 'default',
});
