import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { Context, ContextManager } from '@opentelemetry/api';

/**
 * The OpenTelemetry context manager on AsyncLocalStorage: the active span follows `await`,
 * timers and callbacks. Same behaviour as `@opentelemetry/context-async-hooks`, which is only a
 * transitive dependency here, so it is written out (it is small) rather than imported.
 */
export class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const callback = thisArg === undefined ? fn : fn.bind(thisArg);
    return this.storage.run(ctx, callback as (...a: A) => ReturnType<F>, ...args);
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the bound function must reach this manager
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    const bound = function (this: unknown, ...args: unknown[]): unknown {
      return manager.with(ctx, () => fn.apply(this, args));
    };
    Object.defineProperty(bound, 'length', { value: fn.length });
    return bound as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

/**
 * Makes sure the process has an async-aware context manager. The OpenTelemetry API keeps exactly
 * one per process (the active span is process-wide state by nature); an already installed one is
 * kept. Returns true when this call installed it.
 */
export function ensureContextManager(): boolean {
  return context.setGlobalContextManager(new AsyncLocalStorageContextManager());
}
