// The management platform client (issue 18, in progress): the lighthouse.v1 protocol so far.
export {
  LOADER_OPTIONS,
  lighthouseService,
  METHODS,
  packageDefinition,
  protoFile,
} from './protocol.js';
