#!/usr/bin/env node
// The junction CLI entry point. Commands are loaded lazily by oclif from dist/commands.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });
