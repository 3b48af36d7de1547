import { AsyncLocalStorage } from 'node:async_hooks';
import type * as ContextModule from '../../observability/context';
import { runsOneInvocationAtATime } from '../../observability/context';

/** The context module loaded afresh with `env` over the process's, as a function's first invocation would load it. */
function contextModuleWith(env: Record<string, string | undefined>): typeof ContextModule {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete process.env[name];
  try {
    let loaded: typeof ContextModule | undefined;
    jest.isolateModules(() => {
      loaded = jest.requireActual<typeof ContextModule>('../../observability/context');
    });
    // The holder is chosen at first use, so that use happens while the environment is set.
    loaded!.currentContext();
    return loaded!;
  } finally {
    process.env = saved;
  }
}

const LAMBDA = { AWS_LAMBDA_FUNCTION_NAME: 'checkout', AWS_LAMBDA_MAX_CONCURRENCY: undefined };

afterEach(() => jest.restoreAllMocks());

test('a Lambda environment runs one invocation at a time unless it says it may run several', () => {
  expect(runsOneInvocationAtATime({ AWS_LAMBDA_FUNCTION_NAME: 'checkout' })).toBe(true);
  expect(
    runsOneInvocationAtATime({ AWS_LAMBDA_FUNCTION_NAME: 'checkout', AWS_LAMBDA_MAX_CONCURRENCY: '8' }),
  ).toBe(false);
  // The local stack and the tests run many functions' invocations in one process.
  expect(runsOneInvocationAtATime({})).toBe(false);
});

test('one invocation at a time: no AsyncLocalStorage, so no hook on every promise; several: one', async () => {
  const entered = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
  const ran = jest.spyOn(AsyncLocalStorage.prototype, 'run');

  // The spies see the storage that several invocations at once need.
  const several = contextModuleWith({ AWS_LAMBDA_FUNCTION_NAME: undefined });
  several.enterContext({ fields: {} });
  several.runInContext({ fields: {} }, () => undefined);
  expect(entered).toHaveBeenCalled();
  expect(ran).toHaveBeenCalled();
  entered.mockClear();
  ran.mockClear();

  const one = contextModuleWith(LAMBDA);
  one.enterContext({ fields: { requestId: 'a' } });
  await one.runInContext({ fields: {} }, async () => undefined);
  expect(entered).not.toHaveBeenCalled();
  expect(ran).not.toHaveBeenCalled();
});

test('one invocation at a time: the context entered holds until it ends, and the next replaces it', () => {
  const { enterContext, endContext, currentContext } = contextModuleWith(LAMBDA);
  const first = { fields: { requestId: 'first' } };
  enterContext(first);
  expect(currentContext()).toBe(first);
  endContext();
  expect(currentContext()).toBeUndefined();
  const second = { fields: { requestId: 'second' }, deadline: 1 };
  enterContext(second);
  expect(currentContext()).toBe(second);
});

test('one invocation at a time: a nested context holds until its work settles, then the invocation’s is back', async () => {
  const { enterContext, runInContext, currentContext } = contextModuleWith(LAMBDA);
  const invocation = { fields: { requestId: 'outer' }, deadline: 2_000 };
  enterContext(invocation);
  const nested = { fields: invocation.fields, deadline: 1_000 };

  expect(runInContext(nested, () => currentContext())).toBe(nested);
  expect(currentContext()).toBe(invocation);

  let seenLater: unknown;
  const work = runInContext(nested, async () => {
    await new Promise((resolve) => setImmediate(resolve));
    seenLater = currentContext();
  });
  expect(currentContext()).toBe(nested);
  await work;
  expect(seenLater).toBe(nested);
  expect(currentContext()).toBe(invocation);

  await expect(
    runInContext(nested, async () => {
      throw new Error('refused');
    }),
  ).rejects.toThrow('refused');
  expect(currentContext()).toBe(invocation);
  expect(() =>
    runInContext(nested, () => {
      throw new Error('thrown');
    }),
  ).toThrow('thrown');
  expect(currentContext()).toBe(invocation);
});

test('one invocation at a time: runs that overlap each hold while their work runs, whichever settles first', async () => {
  const { enterContext, runInContext, currentContext } = contextModuleWith(LAMBDA);
  const invocation = { fields: {}, deadline: 3_000 };
  enterContext(invocation);
  const first = { fields: {}, deadline: 1_000 };
  const second = { fields: {}, deadline: 2_000 };
  let endFirst: () => void = () => undefined;
  let endSecond: () => void = () => undefined;
  const a = runInContext(first, () => new Promise<void>((resolve) => (endFirst = resolve)));
  const b = runInContext(second, () => new Promise<void>((resolve) => (endSecond = resolve)));
  expect(currentContext()).toBe(second);

  endFirst();
  await a;
  expect(currentContext()).toBe(second);
  endSecond();
  await b;
  expect(currentContext()).toBe(invocation);

  // A run left over from an invocation that has answered does not take the next one's place.
  let endLeftover: () => void = () => undefined;
  const leftover = runInContext(first, () => new Promise<void>((resolve) => (endLeftover = resolve)));
  const next = { fields: {} };
  enterContext(next);
  expect(currentContext()).toBe(next);
  endLeftover();
  await leftover;
  expect(currentContext()).toBe(next);
});
