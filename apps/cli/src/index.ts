// The CLI is used through its binary; this module exists so tools can resolve the package.
export { exitCodeFor } from './exit-codes.js';
