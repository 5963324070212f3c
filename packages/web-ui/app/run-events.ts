// A run's events (GET /api/v1/runs/:id?verbose=true) as a readable story: model turns with
// their tokens and text, tool calls with arguments and result or error, sub-agents, errors.
import { badge, codeBlock, link } from './components.js';
import { h } from './dom.js';
import { formatCount, formatDuration } from './format.js';
import type { Links } from './links.js';
import type { RunEvent } from './types.js';

type Payload = Record<string, unknown>;

const asPayload = (value: unknown): Payload =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Payload) : {};
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function meta(...parts: Array<string | null | undefined | false>): HTMLElement {
  return h('p', { class: 'meta' }, parts.filter(Boolean).join(' · '));
}

function modelTurn(event: RunEvent, p: Payload): HTMLElement {
  const calls = Array.isArray(p.tool_calls) ? p.tool_calls : [];
  const names = calls.map((c) => text(asPayload(c).name)).filter((n): n is string => !!n);
  const inTokens = num(p.input_tokens);
  const outTokens = num(p.output_tokens);
  return h(
    'li',
    { class: 'event event-turn', 'data-event': 'model_turn' },
    h('h3', null, `Model turn ${num(p.step) ?? ''}`.trim()),
    meta(
      text(p.model),
      inTokens !== undefined && `${formatCount(inTokens)} in`,
      outTokens !== undefined && `${formatCount(outTokens)} out`,
      text(p.finish_reason) && `finish: ${text(p.finish_reason)}`,
      formatDuration(event.duration_ms),
    ),
    names.length > 0 ? h('p', null, 'Asked for: ', names.join(', ')) : null,
    text(p.text) ? h('div', { class: 'prose' }, text(p.text)) : null,
  );
}

function toolCall(event: RunEvent, p: Payload): HTMLElement {
  const name = text(p.tool) ?? 'tool';
  const failed = p.success === false || text(p.error) !== undefined;
  return h(
    'li',
    { class: `event event-tool${failed ? ' event-failed' : ''}`, 'data-tool-call': name },
    h('h3', null, 'Tool call ', h('code', null, name), ' ', badge(failed ? 'error' : 'ok')),
    meta(
      text(p.server) && `server ${text(p.server)}`,
      num(p.step) !== undefined && `step ${num(p.step)}`,
      formatDuration(event.duration_ms),
    ),
    h('h4', null, 'Arguments'),
    codeBlock(p.arguments ?? {}),
    failed
      ? [h('h4', null, 'Error'), codeBlock(p.error ?? p.result ?? '', { class: 'code code-error' })]
      : [h('h4', null, 'Result'), codeBlock(p.result ?? '')],
  );
}

function subAgent(p: Payload, links: Links): HTMLElement {
  const child = num(p.child_run_id);
  return h(
    'li',
    { class: 'event event-sub', 'data-event': 'sub_agent' },
    h('h3', null, 'Sub-agent ', h('code', null, text(p.agent) ?? '?')),
    h(
      'p',
      null,
      child !== undefined ? link(links.run(child), `Run ${child}`) : null,
      ' ',
      text(p.status) ? badge(text(p.status) as string) : null,
    ),
  );
}

function runError(p: Payload): HTMLElement {
  return h(
    'li',
    { class: 'event event-error', 'data-event': 'run_error' },
    h('h3', null, 'Error'),
    h('p', { class: 'error-text' }, text(p.message) ?? 'The run failed.'),
  );
}

function other(event: RunEvent): HTMLElement {
  return h(
    'li',
    { class: 'event', 'data-event': event.type },
    h('h3', null, event.type.replace(/_/g, ' ')),
    meta(formatDuration(event.duration_ms)),
    codeBlock(event.payload),
  );
}

/** The events as an ordered list, oldest first. */
export function renderRunEvents(events: readonly RunEvent[], links: Links): HTMLElement {
  if (events.length === 0) return h('p', { class: 'muted' }, 'No events yet.');
  return h(
    'ol',
    { class: 'events' },
    events.map((event) => {
      const p = asPayload(event.payload);
      switch (event.type) {
        case 'model_turn':
          return modelTurn(event, p);
        case 'tool_call':
          return toolCall(event, p);
        case 'sub_agent':
          return subAgent(p, links);
        case 'run_error':
          return runError(p);
        default:
          return other(event);
      }
    }),
  );
}
