import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import { runService, type ServiceProcess, type Stoppable } from '../src/index.js';

/** A process that records what runService writes and the exit codes it asks for. */
class FakeProcess extends EventEmitter implements ServiceProcess {
  readonly exits: number[] = [];
  readonly lines: string[] = [];
  readonly stderr = { write: (text: string): boolean => this.lines.push(text) > 0 };
  exit(code: number): void {
    this.exits.push(code);
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function service(stop: () => Promise<unknown> = () => Promise.resolve()): Stoppable & {
  stops: number;
} {
  const s = {
    stops: 0,
    stop: () => {
      s.stops += 1;
      return stop();
    },
  };
  return s;
}

describe('runService', () => {
  it('a failed start is one line naming the process, and exit 1', async () => {
    const proc = new FakeProcess();
    await runService({
      name: 'junction-api-server',
      start: () => Promise.reject(new Error('Port 8585 (REST API) is already in use.')),
      unfinished: 'runs',
      process: proc,
    });
    expect(proc.lines).toEqual(['junction-api-server: Port 8585 (REST API) is already in use.\n']);
    expect(proc.exits).toEqual([1]);
  });

  it.each(['SIGTERM', 'SIGINT'])('%s stops the service, then exit 0', async (signal) => {
    const proc = new FakeProcess();
    const started = service();
    await runService({
      name: 'svc',
      start: async () => started,
      unfinished: 'runs',
      process: proc,
    });
    expect(proc.exits).toEqual([]);
    proc.emit(signal);
    await tick();
    expect(started.stops).toBe(1);
    expect(proc.exits).toEqual([0]);
    expect(proc.lines).toEqual([]);
  });

  it('a second signal exits 1 at once, saying what it did not wait for', async () => {
    const proc = new FakeProcess();
    const started = service(() => new Promise(() => undefined)); // a drain that never ends
    await runService({
      name: 'svc',
      start: async () => started,
      unfinished: 'requests',
      process: proc,
    });
    proc.emit('SIGTERM');
    proc.emit('SIGINT');
    expect(proc.lines).toEqual(['svc: SIGINT again; exiting without waiting for requests\n']);
    expect(proc.exits).toEqual([1]);
    expect(started.stops).toBe(1);
  });

  it('a signal during start-up stops the service as soon as it has started', async () => {
    const proc = new FakeProcess();
    const started = service();
    let finishStart: (s: Stoppable) => void = () => undefined;
    const running = runService({
      name: 'svc',
      start: () => new Promise<Stoppable>((resolve) => (finishStart = resolve)),
      unfinished: 'runs',
      process: proc,
    });
    proc.emit('SIGTERM');
    await tick();
    expect(proc.exits).toEqual([]);
    finishStart(started);
    await running;
    await tick();
    expect(started.stops).toBe(1);
    expect(proc.exits).toEqual([0]);
  });

  it('a failed stop is one line and exit 1', async () => {
    const proc = new FakeProcess();
    const started = service(() => Promise.reject(new Error('the store would not close')));
    await runService({
      name: 'svc',
      start: async () => started,
      unfinished: 'runs',
      process: proc,
    });
    proc.emit('SIGTERM');
    await tick();
    expect(proc.lines).toEqual(['svc: the store would not close\n']);
    expect(proc.exits).toEqual([1]);
  });
});
