// Run reports: every run that finishes on this store — whichever process ran it and whoever
// started it — is sent to the platform once with its steps, tool calls and tokens (unary
// SendRun). The last run reported is kept in the store, so a restart or an outage resumes where
// reporting stopped instead of losing or repeating reports.
import { exportedTask } from '@junction/agent-core/runs';
import type { Run, RunEvent, RunReader, Store } from '@junction/store';
import type { Logger, Redactor } from '@junction/telemetry';
import { z } from 'zod';
import type { ManagementChannel } from './channel.js';
import {
  fieldsOf,
  timestamp,
  type AgentRunData,
  type ExecutionStep,
  type LighthouseRunStatus,
  type SendRunRequest,
  type TokenUsage,
  type ToolCallReport,
} from './messages.js';

/** Longest tool result or response text sent in a report. */
const MAX_TEXT = 8_000;
const BATCH = 50;

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… [cut]` : text;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

/** The tool calls of a run's events (already redacted when they were recorded). */
export function toolCallsOf(events: readonly RunEvent[]): ToolCallReport[] {
  return events
    .filter((e) => e.type === 'tool_call')
    .map((e) => {
      const p = fieldsOf(e.payload);
      const parameters: Record<string, string> = {};
      for (const [k, v] of Object.entries(fieldsOf(p.arguments))) parameters[k] = cut(asText(v));
      return {
        tool_name: String(p.tool ?? ''),
        parameters,
        result: cut(asText(p.success === false ? (p.error ?? p.result) : p.result)),
        duration_ms: String(e.durationMs ?? 0),
        success: p.success !== false,
        timestamp: timestamp(e.createdAt),
      };
    });
}

export function tokenUsageOf(run: Run): TokenUsage {
  return {
    prompt_tokens: run.inputTokens,
    completion_tokens: run.outputTokens,
    total_tokens: run.inputTokens + run.outputTokens,
  };
}

function stepsOf(events: readonly RunEvent[]): ExecutionStep[] {
  const steps: ExecutionStep[] = [];
  for (const e of events) {
    const p = fieldsOf(e.payload);
    if (e.type === 'model_turn') {
      const calls = Array.isArray(p.tool_calls)
        ? p.tool_calls.map((c) => String(fieldsOf(c).name ?? '?'))
        : [];
      steps.push({
        step_number: steps.length + 1,
        description: `model ${asText(p.model)}: ${calls.length > 0 ? `calls ${calls.join(', ')}` : `finish ${asText(p.finish_reason) || 'stop'}`}`,
        type: 'STEP_TYPE_LLM_CALL',
        duration_ms: String(e.durationMs ?? 0),
        timestamp: timestamp(e.createdAt),
      });
    } else if (e.type === 'tool_call') {
      steps.push({
        step_number: steps.length + 1,
        description: `tool ${asText(p.server)}/${asText(p.tool)} ${p.success === false ? 'failed' : 'ok'}`,
        type: 'STEP_TYPE_TOOL_CALL',
        duration_ms: String(e.durationMs ?? 0),
        timestamp: timestamp(e.createdAt),
      });
    }
  }
  return steps;
}

function reportStatus(run: Run): LighthouseRunStatus {
  switch (run.status) {
    case 'completed':
      return 'LIGHTHOUSE_RUN_STATUS_COMPLETED';
    case 'cancelled':
      return 'LIGHTHOUSE_RUN_STATUS_CANCELLED';
    case 'timeout':
      return 'LIGHTHOUSE_RUN_STATUS_TIMEOUT';
    default:
      return 'LIGHTHOUSE_RUN_STATUS_FAILED';
  }
}

/** The platform's run id of a run it asked for (its origin), else Junction's run id. */
function reportedRunId(run: Run): string {
  return run.originPlatformRunId ?? String(run.id);
}

/**
 * One finished run as LighthouseAgentRunData; its task is cleaned by `redactor` (the record keeps
 * it as sent, a report leaves Junction).
 */
export function runData(
  run: Run,
  events: readonly RunEvent[],
  version: string,
  redactor: Redactor,
): AgentRunData {
  const duration =
    run.startedAt && run.completedAt ? run.completedAt.getTime() - run.startedAt.getTime() : 0;
  return {
    run_id: reportedRunId(run),
    agent_id: run.agentId === null ? '' : String(run.agentId),
    agent_name: run.agentName,
    task: cut(exportedTask(run, redactor)),
    response: cut(run.finalResponse ?? run.error ?? ''),
    tool_calls: toolCallsOf(events),
    execution_steps: stepsOf(events),
    token_usage: tokenUsageOf(run),
    duration_ms: String(duration),
    model_name: run.model ?? '',
    status: reportStatus(run),
    ...(run.startedAt ? { started_at: timestamp(run.startedAt) } : {}),
    ...(run.completedAt ? { completed_at: timestamp(run.completedAt) } : {}),
    metadata: {
      junction_run_id: String(run.id),
      source: run.source,
      ...(run.error ? { error: cut(run.error) } : {}),
      ...(run.traceId ? { trace_id: run.traceId } : {}),
    },
    station_version: version,
  };
}

const cursorSchema = z.object({ at: z.number(), id: z.number() });

/** The slice of the store the reporter uses: it reads finished runs and keeps its cursor. */
export type RunReporterStore = Pick<Store, 'settings' | 'runEvents'> & { readonly runs: RunReader };

export interface RunReporterOptions {
  store: RunReporterStore;
  channel: Pick<ManagementChannel, 'sendRun' | 'onConnected' | 'status'>;
  logger: Logger;
  version: string;
  /** The station's name: each station keeps its own place in the run history. */
  stationName: string;
  environment: string;
  mode: SendRunRequest['mode'];
  /** Cleans each report's task of the process's secrets (the station's redactor). */
  redactor: Redactor;
  /** How often runs finished by other processes are looked for. Default 5 s. */
  pollMs?: number;
  now?: () => Date;
}

/** Sends each finished run once, in the order runs finished, while the channel is connected. */
export class RunReporter {
  readonly #o: RunReporterOptions;
  readonly #key: string;
  #timer: NodeJS.Timeout | undefined;
  #busy: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(options: RunReporterOptions) {
    this.#o = options;
    this.#key = `management.report_cursor.${options.stationName}`;
    options.channel.onConnected(() => this.wake());
  }

  start(): void {
    this.#timer = setInterval(() => this.wake(), this.#o.pollMs ?? 5_000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#busy;
  }

  /** A run finished (here) or the channel came up: report what is due now. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = this.#drain()
      .catch((err: unknown) =>
        this.#o.logger.warn('run reports to the management platform are behind', {
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        this.#busy = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** Resolves when every report due so far has been tried (tests). */
  async idle(): Promise<void> {
    while (this.#busy) await this.#busy;
  }

  async #drain(): Promise<void> {
    const { store, channel, version } = this.#o;
    if (channel.status().state !== 'connected') return;
    let cursor = await store.settings.get(this.#key, cursorSchema);
    if (!cursor) {
      // First connection of this station: report from now on, not the whole history.
      cursor = { at: (this.#o.now?.() ?? new Date()).getTime(), id: 0 };
      await store.settings.set(this.#key, cursor);
    }
    for (;;) {
      const batch = await store.runs.finishedAfter(
        { at: new Date(cursor.at), id: cursor.id },
        BATCH,
      );
      for (const run of batch) {
        if (this.#stopped || channel.status().state !== 'connected') return;
        const events = await store.runEvents.list(run.id, { limit: 10_000 });
        await channel.sendRun({
          environment: this.#o.environment,
          mode: this.#o.mode,
          source: run.source === 'management' ? 'RUN_SOURCE_UI_TRIGGERED' : 'RUN_SOURCE_ANALYTICS',
          run_data: runData(run, events, version, this.#o.redactor),
          labels: { source: run.source },
        });
        cursor = { at: run.completedAt!.getTime(), id: run.id };
        await store.settings.set(this.#key, cursor);
      }
      if (batch.length < BATCH) return;
    }
  }
}
