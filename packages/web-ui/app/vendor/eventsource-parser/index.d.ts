// The types of ./index.js: the eventsource-parser package's own ES module (dist/index.js, with
// the modules it imports), which scripts/copy-static.mjs copies into dist/ui/vendor/ because the
// browser gets no bundler. app/ imports it by this relative path; TypeScript reads the
// package's declarations through this file, and jest.config.js maps the path to the package.
export * from 'eventsource-parser';
