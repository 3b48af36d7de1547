// A hang detector, not a speed assertion: Medusa's cold start and a 50-cart race are slow on a busy machine.
jest.setTimeout(600_000);
