// Turns an agent's `model:` (or the config default) into an AI SDK language model, and
// refuses, before any run starts, when the provider is unknown or a key or URL is missing.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { AgentCoreError } from '../errors.js';

// Callers that resolve a model also classify its failures; one import serves both.
export { classifyProviderError, redactSecrets } from './model-errors.js';
export type { ProviderErrorInfo, ProviderErrorKind } from './model-errors.js';

/** Provider names accepted as the first segment of a model id and as `ai_provider`. */
export const PROVIDERS = ['openai', 'anthropic', 'google', 'ollama', 'openai-compatible'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** The config.yaml keys that choose the model; a plain object so any config loader can pass it. */
export interface ModelSettings {
  ai_provider?: string;
  ai_model?: string;
  ai_base_url?: string;
  ai_api_key?: string;
}

/** A model ready for `generateText` / `streamText`, with the names to record. */
export interface ResolvedModel {
  /** A `LanguageModel` for the AI SDK (v3 specification: `provider` and `modelId` are readable). */
  model: LanguageModelV3;
  provider: ProviderName;
  /** The provider's own model name, e.g. `gpt-4o-mini` or `meta-llama/Llama-3-8B`. */
  modelId: string;
  /** "provider/model" for records, spans and metrics. */
  id: string;
}

/** Where a provider's key may come from, in the order they are tried after `ai_api_key`. */
export const PROVIDER_KEY_ENV: Readonly<Record<ProviderName, readonly string[]>> = {
  openai: ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  google: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  ollama: [],
  'openai-compatible': ['OPENAI_COMPATIBLE_API_KEY'],
};

/** Ollama's OpenAI-compatible endpoint on the local machine. */
export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';

// Passed explicitly so the SDK never falls back to OPENAI_BASE_URL / ANTHROPIC_BASE_URL from
// process.env behind the caller's back: the env argument is the only environment we read.
const DEFAULT_BASE_URLS = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
} as const;

const KEY_REQUIRED: Readonly<Record<ProviderName, boolean>> = {
  openai: true,
  anthropic: true,
  google: true,
  ollama: false,
  'openai-compatible': false,
};

function isProvider(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

function clean(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function unknownProvider(name: string, source: string): AgentCoreError {
  return new AgentCoreError(
    'MODEL_PROVIDER_UNKNOWN',
    `Unknown model provider "${name}" (${source}). Known providers: ${PROVIDERS.join(', ')}. ` +
      'Write the model as "<provider>/<model>", e.g. "openai/gpt-4o-mini".',
    { provider: name, source, known: [...PROVIDERS] },
  );
}

/** The provider that config.yaml's ai_provider names (default openai), or an error. */
function configuredProvider(settings: ModelSettings): ProviderName {
  const name = clean(settings.ai_provider)?.toLowerCase() ?? 'openai';
  if (!isProvider(name)) throw unknownProvider(name, 'ai_provider in config.yaml');
  return name;
}

/**
 * Splits "provider/model". Only a known provider name counts as a prefix; otherwise the whole
 * text is a model name for the configured provider (model names may contain "/").
 */
function splitModelId(
  text: string,
  settings: ModelSettings,
  source: string,
): { provider: ProviderName; modelId: string; explicit: boolean } {
  const slash = text.indexOf('/');
  if (slash > 0) {
    const prefix = text.slice(0, slash).toLowerCase();
    if (isProvider(prefix)) {
      const modelId = text.slice(slash + 1).trim();
      if (modelId === '') {
        throw new AgentCoreError(
          'MODEL_NOT_CONFIGURED',
          `Model "${text}" (${source}) names a provider but no model; write it as "${prefix}/<model>".`,
          { model: text, source },
        );
      }
      return { provider: prefix, modelId, explicit: true };
    }
  }
  return { provider: configuredProvider(settings), modelId: text, explicit: false };
}

/** The provider whose endpoint config.yaml's ai_base_url and ai_api_key describe. */
function settingsProvider(settings: ModelSettings): ProviderName | undefined {
  const model = clean(settings.ai_model);
  try {
    return model === undefined
      ? configuredProvider(settings)
      : splitModelId(model, settings, 'ai_model').provider;
  } catch {
    return undefined;
  }
}

function apiKeyFor(
  provider: ProviderName,
  configKey: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (configKey !== undefined) return configKey;
  for (const name of PROVIDER_KEY_ENV[provider]) {
    const value = clean(env[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The key values resolveModel may use, to pass to redactSecrets / classifyProviderError. */
export function modelSecrets(settings: ModelSettings, env: NodeJS.ProcessEnv): string[] {
  const names = new Set(Object.values(PROVIDER_KEY_ENV).flat());
  const values = [settings.ai_api_key, ...[...names].map((name) => env[name])];
  return values.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

function missingKey(provider: ProviderName, id: string): AgentCoreError {
  const envNames = PROVIDER_KEY_ENV[provider];
  return new AgentCoreError(
    'MODEL_API_KEY_MISSING',
    `No API key for model "${id}": set ${envNames.join(' or ')} in the environment, ` +
      `or ai_api_key in config.yaml (it applies when ai_provider is ${provider}).`,
    { provider, model: id, env: [...envNames], config_key: 'ai_api_key' },
  );
}

/**
 * Resolves `provider/model` (or a bare model with ai_provider) to an AI SDK model; throws a clear
 * MODEL_* error before any run starts.
 */
export function resolveModel(
  modelId: string | undefined,
  settings: ModelSettings,
  env: NodeJS.ProcessEnv,
): ResolvedModel {
  const fromAgent = clean(modelId);
  const text = fromAgent ?? clean(settings.ai_model);
  const source = fromAgent !== undefined ? 'the agent model' : 'ai_model in config.yaml';
  if (text === undefined) {
    throw new AgentCoreError(
      'MODEL_NOT_CONFIGURED',
      'No model configured: set `model:` in the prompt file front matter (e.g. "openai/gpt-4o-mini") ' +
        'or ai_model in config.yaml.',
      {},
    );
  }

  const { provider, modelId: name, explicit } = splitModelId(text, settings, source);
  const id = `${provider}/${name}`;

  // ai_base_url and ai_api_key describe one endpoint: the provider config.yaml is set up for.
  // A model on another provider gets its own env key and default URL, so an OpenAI key is
  // never sent to another vendor and a vLLM URL never replaces Anthropic's.
  const ownsSettings = settingsProvider(settings) === provider;
  const baseUrl = ownsSettings ? clean(settings.ai_base_url) : undefined;
  const configKey = ownsSettings ? clean(settings.ai_api_key) : undefined;

  // The official OpenAI and Anthropic APIs have no "/" in model names: an unknown prefix there
  // is almost always a misspelt provider, better reported now than as a 404 mid-run.
  if (
    !explicit &&
    name.includes('/') &&
    baseUrl === undefined &&
    (provider === 'openai' || provider === 'anthropic')
  ) {
    throw unknownProvider(name.slice(0, name.indexOf('/')), source);
  }

  const apiKey = apiKeyFor(provider, configKey, env);
  if (KEY_REQUIRED[provider] && apiKey === undefined) throw missingKey(provider, id);

  return {
    model: createModel(provider, name, id, baseUrl, apiKey, env),
    provider,
    modelId: name,
    id,
  };
}

function createModel(
  provider: ProviderName,
  name: string,
  id: string,
  baseUrl: string | undefined,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv,
): LanguageModelV3 {
  switch (provider) {
    case 'openai':
      // Chat Completions, not the Responses API: every OpenAI-compatible server (vLLM,
      // LiteLLM, proxies, the test fake) speaks it, so ai_base_url works for all of them.
      return createOpenAI({ apiKey, baseURL: baseUrl ?? DEFAULT_BASE_URLS.openai }).chat(name);
    case 'anthropic':
      return createAnthropic({ apiKey, baseURL: baseUrl ?? DEFAULT_BASE_URLS.anthropic })(name);
    case 'google':
      return createGoogleGenerativeAI({ apiKey, baseURL: baseUrl ?? DEFAULT_BASE_URLS.google })(
        name,
      );
    case 'ollama':
      return createOpenAICompatible({
        name: 'ollama',
        baseURL: baseUrl ?? DEFAULT_OLLAMA_BASE_URL,
        apiKey,
        includeUsage: true,
      }).chatModel(name);
    case 'openai-compatible': {
      const url = baseUrl ?? clean(env.OPENAI_COMPATIBLE_BASE_URL);
      if (url === undefined) {
        throw new AgentCoreError(
          'MODEL_BASE_URL_MISSING',
          `Model "${id}" needs the server's base URL: set ai_provider: openai-compatible and ` +
            'ai_base_url (e.g. http://127.0.0.1:8000/v1) in config.yaml, or OPENAI_COMPATIBLE_BASE_URL ' +
            'in the environment.',
          { provider, model: id, config_key: 'ai_base_url', env: ['OPENAI_COMPATIBLE_BASE_URL'] },
        );
      }
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: url,
        apiKey,
        includeUsage: true,
      }).chatModel(name);
    }
  }
}
