import { jestPreset } from '@junction/tooling/jest-preset';

export default jestPreset();
