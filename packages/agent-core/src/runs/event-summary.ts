// One line per run event, the same wherever a run's events are shown as they happen or after:
// `runs inspect`, `agent run`, `logs --run`, MCP call_agent's progress.

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

type Fields = Record<string, unknown>;

function fieldsOf(payload: unknown): Fields {
  return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
    ? (payload as Fields)
    : {};
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** One line per event type the runner writes; anything else is shown as compact JSON. */
export function summarizeEvent(type: string, payload: unknown): string {
  const p = fieldsOf(payload);
  const step = str(p.step) !== undefined ? `step ${str(p.step)}` : undefined;
  switch (type) {
    case 'model_turn': {
      const calls = Array.isArray(p.tool_calls)
        ? p.tool_calls.map((c) => str(fieldsOf(c).name) ?? '?')
        : [];
      const parts = [
        step,
        str(p.model),
        p.input_tokens !== undefined || p.output_tokens !== undefined
          ? `tokens ${str(p.input_tokens) ?? 0} in / ${str(p.output_tokens) ?? 0} out`
          : undefined,
        str(p.finish_reason) !== undefined ? `finish ${str(p.finish_reason)}` : undefined,
        calls.length > 0 ? `calls ${calls.join(', ')}` : undefined,
        calls.length === 0 && typeof p.text === 'string' && p.text.trim() !== ''
          ? JSON.stringify(oneLine(p.text, 60))
          : undefined,
      ];
      return parts.filter((x) => x !== undefined).join('  ');
    }
    case 'tool_call': {
      const tool = [str(p.server), str(p.tool)].filter((x) => x !== undefined).join('/') || '?';
      const outcome =
        p.success === false
          ? `failed${typeof p.error === 'string' ? `: ${oneLine(p.error, 80)}` : ''}`
          : 'ok';
      return [step, tool, outcome].filter((x) => x !== undefined).join('  ');
    }
    case 'sub_agent':
      return [
        str(p.tool) ?? '?',
        str(p.child_run_id) !== undefined ? `→ run ${str(p.child_run_id)}` : undefined,
        str(p.status),
      ]
        .filter((x) => x !== undefined)
        .join('  ');
    case 'coding_event': {
      const git = fieldsOf(p.git);
      return [
        str(p.session_id),
        str(p.type) ?? '?',
        str(p.tool),
        str(p.attempt) !== undefined ? `attempt ${str(p.attempt)}` : undefined,
        str(git.commit) !== undefined ? `commit ${str(git.commit)!.slice(0, 12)}` : undefined,
        typeof p.content === 'string' && p.content.trim() !== ''
          ? JSON.stringify(oneLine(p.content, 80))
          : typeof p.error === 'string'
            ? `error: ${oneLine(p.error, 80)}`
            : undefined,
      ]
        .filter((x) => x !== undefined)
        .join('  ');
    }
    case 'run_error':
      return oneLine(str(p.message) ?? JSON.stringify(payload ?? null), 120);
    case 'attempt_ended':
      return [
        `attempt ${str(p.attempt) ?? '?'} ended: ${str(p.reason) ?? '?'}`,
        str(p.worker_id) !== undefined ? `worker ${str(p.worker_id)}` : undefined,
      ]
        .filter((x) => x !== undefined)
        .join('  ');
    case 'resumed':
      return [
        `attempt ${str(p.attempt) ?? '?'} resumed at step ${str(p.from_step) ?? '?'}`,
        str(p.replayed_tool_calls) !== undefined
          ? `${str(p.replayed_tool_calls)} tool call(s) from the journal`
          : undefined,
        str(p.worker_id) !== undefined ? `worker ${str(p.worker_id)}` : undefined,
      ]
        .filter((x) => x !== undefined)
        .join('  ');
    default:
      return payload === null || payload === undefined ? '' : oneLine(JSON.stringify(payload), 120);
  }
}
