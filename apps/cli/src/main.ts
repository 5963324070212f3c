// What bin/run.js starts oclif with. oclif is bundled with the commands (scripts/bundle.mjs),
// so the entry, the commands and the hooks share the one copy of @oclif/core in the bundle.
export { execute } from '@oclif/core';
