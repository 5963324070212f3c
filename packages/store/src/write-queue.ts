/**
 * Runs write tasks one at a time, in call order. Every write in a process goes through one
 * queue per database, so multi-statement writes never interleave with each other.
 */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Runs `task` after every task queued before it has settled; resolves with its result. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending += 1;
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => this.#settle(),
      () => this.#settle(),
    );
    return result;
  }

  /** Number of tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Resolves once every task queued so far has settled. */
  async idle(): Promise<void> {
    await this.#tail;
  }

  #settle(): void {
    this.#pending -= 1;
  }
}
