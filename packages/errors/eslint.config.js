export { default } from '@junction/tooling/eslint';
