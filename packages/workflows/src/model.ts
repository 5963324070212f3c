// A workflow as the engine runs it: the file's states, checked and normalised once (see
// definition.ts), so the engine never meets a spelling variant or an unparsed expression.
import type { Program } from './expressions/index.js';

/** Retry of a failed step: attempts in all, and the wait before each new one. */
export interface RetryPolicy {
  maxAttempts: number;
  initialMs: number;
  multiplier: number;
  maxMs: number;
  /** Only errors whose message contains one of these are retried; empty: every error. */
  retryOn: string[];
}

/** What every state has, whatever its type. */
export interface StateBase {
  /** The state's id (or name) in the file. */
  id: string;
  /** The next state, or undefined at an end. */
  next?: string;
  /** `end: true`: the run (or block) ends here. */
  end?: boolean;
  /** `$.a.b`: what the state works on instead of the whole run context. */
  input?: string;
  /** `$.a.b`: what of the state's result is kept as its output. */
  output?: string;
  /** `$.a.b`: where in the run context the output is stored as well. */
  resultPath?: string;
  timeoutMs?: number;
  retry?: RetryPolicy;
}

export interface AgentState extends StateBase {
  type: 'agent';
  agent: string;
  /** The task, with `{{ a.b }}` placeholders filled from the context. */
  task: string;
  variables: Record<string, string>;
}

export interface InjectState extends StateBase {
  type: 'inject';
  data: unknown;
}

export interface SwitchState extends StateBase {
  type: 'switch';
  dataPath?: string;
  conditions: Array<{ if: Program; source: string; next: string }>;
  defaultNext?: string;
}

export interface TransformState extends StateBase {
  type: 'transform';
  expression: Program;
}

export interface ParallelState extends StateBase {
  type: 'parallel';
  branches: Graph[];
  /** Each branch's name (its `name` or `id`), the key of its output. */
  branchNames: string[];
  /** merge: `{branch: output}`; array: `{results: [output…]}`. */
  aggregation: 'merge' | 'array';
}

export interface ForeachState extends StateBase {
  type: 'foreach';
  itemsPath: string;
  itemName: string;
  maxConcurrency: number;
  iterator: Graph;
  /** object: `{results, count}`; array: the list of results itself. */
  aggregation: 'object' | 'array';
}

export interface TimerState extends StateBase {
  type: 'timer';
  durationMs: number;
}

export interface TryState extends StateBase {
  type: 'try';
  try: Graph;
  catch?: Graph;
  finally?: Graph;
}

export interface ApprovalState extends StateBase {
  type: 'human_approval';
  message: string;
  approvers: string[];
  timeoutSeconds: number;
  /** Where a rejection goes; without it a rejection fails the run. */
  onRejected?: string;
  /** Where a timeout goes; without it a timeout fails the run. */
  onTimeout?: string;
}

/** A `cron` trigger: stored for the scheduler; running a workflow passes through it. */
export interface CronState extends StateBase {
  type: 'cron';
  cron: string;
  timezone?: string;
  enabled: boolean;
  input?: string;
  triggerInput: unknown;
}

export type State =
  | AgentState
  | InjectState
  | SwitchState
  | TransformState
  | ParallelState
  | ForeachState
  | TimerState
  | TryState
  | ApprovalState
  | CronState;

export type StateType = State['type'];

/** States with a start: the workflow itself, a parallel branch, a foreach iterator, a try block. */
export interface Graph {
  start: string;
  states: Map<string, State>;
  /** The states in file order: inside a block, a state without next goes on to the following one. */
  inOrder: string[];
  /** True for a block (branch, iterator, try/catch/finally); false for the workflow's states. */
  block: boolean;
}

export interface WorkflowModel {
  id: string;
  name: string;
  version?: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  graph: Graph;
  /** Longest a whole run may take; undefined: no limit. */
  timeoutMs?: number;
}
