// The management platform client: the lighthouse.v1 protocol, the management channel (register,
// heartbeat, answer the platform's requests, reconnect), run reports, and the workspace files of
// `junction auth`.
export {
  LOADER_OPTIONS,
  lighthouseService,
  METHODS,
  packageDefinition,
  protoFile,
} from './protocol.js';
export { channelCredentials, ManagementChannel, ManagementRequestError } from './channel.js';
export type {
  ManagementChannelOptions,
  ManagementState,
  ManagementStatus,
  Reply,
  StationService,
} from './channel.js';
export { connectError, ManagementConnectError } from './connect-error.js';
export type { ConnectCause } from './connect-error.js';
export type * from './messages.js';
export { PLATFORM_REQUESTS, timestamp } from './messages.js';
export { managementSettings, ManagementSettingsError } from './settings.js';
export type { KeySource, ManagementSettings } from './settings.js';
export { createStation, SPAN_MANAGEMENT_REQUEST } from './station.js';
export type { StationOptions } from './station.js';
export { RunReporter, runData } from './run-report.js';
export type { RunReporterOptions } from './run-report.js';
export {
  LOGIN_FILE,
  loginFile,
  readLogin,
  readStatus,
  removeLogin,
  saveLogin,
  STATUS_FILE,
  statusFile,
} from './workspace-files.js';
export type { StatusRecord, StoredLogin } from './workspace-files.js';
