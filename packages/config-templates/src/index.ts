// Public API of @junction/config-templates: the workspace on disk. Names are exported one by one.
export { resolvePaths } from './paths.js';
export type { WorkspacePaths } from './paths.js';

export {
  NOTIFICATION_EVENTS,
  createConfigSchema,
  defaultWebhookUrl,
  listConfigKeys,
  withDefaultPort,
} from './config-schema.js';
export type { Config, ConfigKeyInfo, ConfigSchema } from './config-schema.js';
export { ENV_OVERRIDES } from './env-overrides.js';
export type { EnvOverride, EnvOverrideKind } from './env-overrides.js';
export { WEBHOOK_SECRET_PREFIX, readWebhookSigningSecret } from './webhook-signing-secret.js';
export { loadConfig } from './load-config.js';
export { BODY_UNDECODABLE_MESSAGE, bodyReadFailure } from './body-read-failure.js';
export type { BodyReadFailure } from './body-read-failure.js';
export { storeOptionsOf } from './store-options.js';
export type { LoadConfigOptions } from './load-config.js';
export { configValueAt } from './default-config.js';

export { DEFAULT_ENVIRONMENT, WORKFLOW_FILE_SUFFIXES, Workspace } from './workspace.js';
export type { CopyAgentOptions, InitResult } from './workspace.js';
export { assertValidName, hasControlCharacter, visibleText } from './names.js';

export { renderTemplate } from './template-renderer.js';
export type { RenderTemplateOptions } from './template-renderer.js';
export {
  hashTemplate,
  mcpServerSchema,
  mcpTemplateSchema,
  parseMcpTemplate,
  templateName,
} from './mcp-template.js';
export type { McpServer, McpTemplate } from './mcp-template.js';
export { loadEnvironmentTemplates } from './environment-templates.js';
export type { LoadedTemplate } from './environment-templates.js';

export { agentDefinitionSchema, canonicalToolName } from './agent-definition.js';
export type { AgentDefinition } from './agent-definition.js';
export {
  newPromptFileSchema,
  parsePrompt,
  parsePromptFile,
  promptFileText,
  updatedPromptFileText,
  writePromptFile,
} from './prompt-file.js';
export type { NewPromptFile, PromptFileChanges } from './prompt-file.js';
export { writeFileAtomic, writeFileAtomicSync } from './atomic-write.js';
export { inputDepthProblem, MAX_INPUT_DEPTH } from './input-depth.js';
export { MAX_RUN_TIMEOUT_SECONDS } from './run-timeout.js';
export {
  DURATION_EXAMPLES,
  DURATION_FORMS,
  DURATION_PATTERN,
  DURATION_UNITS_MS,
  ISO_TIME_PATTERN,
  MAX_DURATION_TEXT,
  TIME_FORMS,
  parseDuration,
  parseFileDuration,
  parseTimePoint,
  formatUptime,
} from './duration.js';
export type {
  DurationProblem,
  DurationResult,
  TimePoint,
  TimePointProblem,
  TimePointResult,
} from './duration.js';
export { renderPrompt } from './prompt-renderer.js';
export type { PromptMessage, RenderPromptOptions, RenderedPrompt } from './prompt-renderer.js';

export { CONFIG_TEMPLATES_ERRORS, ConfigTemplatesError, isConfigTemplatesError } from './errors.js';
export type { ConfigTemplatesErrorCode, JsonValue } from './errors.js';
export { readYaml, type YamlProblem, type YamlResult } from './yaml-text.js';
export {
  cronProblem,
  nextFireTime,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_OVERLAPS,
  type CronProblem,
} from './cron.js';
