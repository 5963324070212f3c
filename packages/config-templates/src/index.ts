// Public API of @junction/config-templates: the workspace on disk. Names are exported one by one.
export { resolvePaths } from './paths.js';
export type { WorkspacePaths } from './paths.js';

export {
  AI_PROVIDERS,
  CODING_BACKENDS,
  DERIVED_CONFIG_KEYS,
  LOG_FORMATS,
  LOG_LEVELS,
  NOTIFICATION_EVENTS,
  TRACE_SAMPLERS,
  UNKNOWN_OUTCOME_ACTIONS,
  createConfigSchema,
  defaultWebhookUrl,
  listConfigKeys,
  withDefaultPort,
} from './config-schema.js';
export type { Config, ConfigKeyInfo, ConfigSchema } from './config-schema.js';
export { ENV_OVERRIDES, parseOtlpHeaders } from './env-overrides.js';
export type { EnvOverride, EnvOverrideKind } from './env-overrides.js';
export { WEBHOOK_SECRET_PREFIX, readWebhookSigningSecret } from './webhook-signing-secret.js';
export { loadConfig } from './load-config.js';
export { BODY_UNDECODABLE_MESSAGE, bodyReadFailure } from './body-read-failure.js';
export type { BodyReadFailure } from './body-read-failure.js';
export { storeOptionsOf } from './store-options.js';
export type { LoadConfigOptions } from './load-config.js';
export { configValueAt, defaultConfigYaml } from './default-config.js';

export { DEFAULT_ENVIRONMENT, WORKFLOW_FILE_SUFFIXES, Workspace } from './workspace.js';
export type { CopyAgentOptions, InitResult } from './workspace.js';
export {
  agentNameProblem,
  assertValidName,
  hasControlCharacter,
  isValidName,
  MAX_AGENT_NAME_LENGTH,
  visibleText,
} from './names.js';

export {
  SYSTEM_ENV_PREFIXES,
  SYSTEM_ENV_VARIABLES,
  isSystemEnvVariable,
  renderTemplate,
  templateVariables,
} from './template-renderer.js';
export type { RenderTemplateOptions } from './template-renderer.js';
export {
  hashTemplate,
  mcpHttpServerSchema,
  mcpServerSchema,
  mcpStdioServerSchema,
  mcpTemplateSchema,
  parseMcpTemplate,
  templateName,
} from './mcp-template.js';
export type { McpHttpServer, McpServer, McpStdioServer, McpTemplate } from './mcp-template.js';
export { loadEnvironmentTemplates } from './environment-templates.js';
export type { LoadedTemplate } from './environment-templates.js';

export { DEFAULT_MAX_STEPS, agentDefinitionSchema, canonicalToolName } from './agent-definition.js';
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
export { writeFileAtomic } from './atomic-write.js';
export { inputDepthProblem, MAX_INPUT_DEPTH } from './input-depth.js';
export {
  DURATION_EXAMPLES,
  DURATION_FORMS,
  DURATION_PATTERN,
  DURATION_UNITS_MS,
  ISO_TIME_PATTERN,
  MAX_DURATION_MS,
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

export {
  CONFIG_TEMPLATES_ERRORS,
  CONFIG_TEMPLATES_ERROR_CODES,
  ConfigError,
  ConfigTemplatesError,
  PromptError,
  TemplateError,
  WorkspaceError,
  isConfigTemplatesError,
} from './errors.js';
export type { ConfigTemplatesErrorCode, ConfigTemplatesErrorOptions, JsonValue } from './errors.js';
export { readYaml, type YamlProblem, type YamlResult } from './yaml-text.js';
export {
  cronProblem,
  isTimeZone,
  nextFireTime,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_OVERLAPS,
  type CronProblem,
} from './cron.js';
