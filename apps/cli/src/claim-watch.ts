// What `agent run --queue` says while its run waits: whether a worker has taken it is read from
// the run's status in the store, never guessed from the events seen (a worker waiting on a slow
// model writes none for a long while).

export interface ClaimWatchOptions {
  /** The run's status now (from the store); undefined when it cannot be read. */
  status(): Promise<string | undefined>;
  /** Called once, when a worker has taken the run (its status is no longer `queued`). */
  onTaken(): void;
  /** Called once, when the run is still `queued` after `hintMs`. */
  onStillQueued(): void;
  /** How long a run may wait for a worker before onStillQueued. */
  hintMs: number;
  /** How often the status is read. */
  pollMs: number;
}

/** Reads the run's status every `pollMs` until a worker takes it; stop() ends the watch. */
export function watchClaim(options: ClaimWatchOptions): { stop(): void } {
  const started = Date.now();
  let hinted = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async (): Promise<void> => {
    const status = await options.status().catch(() => undefined);
    if (stopped) return;
    if (status !== undefined && status !== 'queued') {
      stopped = true;
      options.onTaken();
      return;
    }
    if (status === 'queued' && !hinted && Date.now() - started >= options.hintMs) {
      hinted = true;
      options.onStillQueued();
    }
    timer = setTimeout(() => void check(), options.pollMs);
    timer.unref();
  };
  timer = setTimeout(() => void check(), options.pollMs);
  timer.unref();
  return {
    stop(): void {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
