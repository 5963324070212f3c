// The runs stream's Server-Sent Events parsing, done by the eventsource-parser package (served
// from vendor/, see scripts/copy-static.mjs). EventSource cannot send an Authorization header,
// so the stream is read with fetch and its decoded text fed here; this adapter turns the
// package's callbacks into the events one chunk completed, names unnamed events "message" and
// keeps the last event id and the `retry:` delay, as a browser's EventSource would.
import { createParser, type EventSourceParser } from './vendor/eventsource-parser/index.js';

/** One dispatched event. */
export interface SseMessage {
  /** The `event:` field, or "message" when the event named none. */
  event: string;
  data: string;
  /** The last event id: the `id:` of this event or of an earlier one, if any. */
  id: string | undefined;
}

/** Feed decoded text in any chunking; complete events come back in order. */
export class SseParser {
  readonly #parser: EventSourceParser;
  #completed: SseMessage[] = [];
  #lastId: string | undefined;
  #retry: number | undefined;

  constructor() {
    this.#parser = createParser({
      // Called for every block with an id, with or without data, before its onEvent.
      onId: (id) => {
        this.#lastId = id;
      },
      onEvent: (event) => {
        this.#completed.push({
          event: event.event || 'message',
          data: event.data,
          id: this.#lastId,
        });
      },
      // A malformed value (not only digits) never reaches onRetry: it is ignored.
      onRetry: (ms) => {
        this.#retry = ms;
      },
    });
  }

  /** The reconnection delay the server asked for with `retry:`, in milliseconds. */
  get retry(): number | undefined {
    return this.#retry;
  }

  /** Parses one chunk of text; returns the events it completed. */
  push(chunk: string): SseMessage[] {
    this.#parser.feed(chunk);
    const completed = this.#completed;
    this.#completed = [];
    return completed;
  }

  /** Forgets a partial event, as at the end of a stream (the standard drops it). */
  reset(): void {
    this.#parser.reset();
    this.#completed = [];
  }
}
