// A Server-Sent Events parser for text read from a fetch body. EventSource cannot send an
// Authorization header, so the runs stream is read with fetch and parsed here, following the
// event-stream rules of the HTML standard: lines end in CRLF, LF or CR (a CRLF may be split
// between chunks), `:` starts a comment, `data` lines join with "\n", a blank line dispatches.

/** One dispatched event. */
export interface SseMessage {
  /** The `event:` field, or "message" when the event named none. */
  event: string;
  data: string;
  /** The last `id:` seen on the stream, if any. */
  id: string | undefined;
}

const LINE_END = /\r\n|\r|\n/g;

/** Feed decoded text in any chunking; complete events come back in order. */
export class SseParser {
  #buffer = '';
  #started = false;
  /** The previous chunk ended in CR: a LF starting this one belongs to that line end. */
  #pendingCr = false;
  #data: string[] = [];
  #event = '';
  #lastId: string | undefined;
  #retry: number | undefined;

  /** The reconnection delay the server asked for with `retry:`, in milliseconds. */
  get retry(): number | undefined {
    return this.#retry;
  }

  /** Parses one chunk of text; returns the events it completed. */
  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#pendingCr && text.length > 0) {
      if (text.startsWith('\n')) text = text.slice(1);
      this.#pendingCr = false;
    }

    const buffer = this.#buffer + text;
    const out: SseMessage[] = [];
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let match = LINE_END.exec(buffer); match; match = LINE_END.exec(buffer)) {
      const message = this.#line(buffer.slice(start, match.index));
      if (message) out.push(message);
      start = match.index + match[0].length;
      if (match[0] === '\r' && start === buffer.length) this.#pendingCr = true;
    }
    this.#buffer = buffer.slice(start);
    return out;
  }

  /** Forgets a partial event, as at the end of a stream (the standard drops it). */
  reset(): void {
    this.#buffer = '';
    this.#started = false;
    this.#pendingCr = false;
    this.#data = [];
    this.#event = '';
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.#lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
      default:
        // Unknown fields are ignored, as the standard says.
        break;
    }
    return undefined;
  }

  #dispatch(): SseMessage | undefined {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = '';
    if (data.length === 0) return undefined;
    return { event: event === '' ? 'message' : event, data: data.join('\n'), id: this.#lastId };
  }
}
