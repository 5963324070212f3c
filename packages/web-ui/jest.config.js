import { jestPreset } from '@junction/tooling/jest-preset';

const preset = jestPreset();

export default {
  ...preset,
  moduleNameMapper: {
    // app/ imports eventsource-parser by the path of its copy in dist/ui/vendor/ (the browser has
    // no bundler, see scripts/copy-static.mjs); in Node that is the package itself. First, so the
    // preset's `./x.js` → `./x` rule does not take it.
    '^(\\.{1,2}/)+vendor/eventsource-parser/index\\.js$': 'eventsource-parser',
    ...preset.moduleNameMapper,
  },
};
