// The settings a one-off command needs without composing a service: which values are secrets
// (for redaction) and where approval links point. Light: no listeners, surfaces or telemetry SDK.
export { secretsOf } from '../service-settings.js';
export { approvalBaseUrl } from '../webhook-address.js';
