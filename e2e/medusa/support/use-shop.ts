import { startShop, type Shop } from './shop';

/**
 * Starts a shop before the file's tests and closes it after them. Tests are declared before it starts, so the
 * answer reads each property from the started shop when a test uses it.
 */
export function useShop(): Shop {
  let started: Shop | undefined;
  beforeAll(async () => {
    started = await startShop();
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as Shop, {
    get: (_, property) => {
      if (!started) throw new Error('The shop has not started: use it inside a test');
      return Reflect.get(started, property);
    },
  });
}
