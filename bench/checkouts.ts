import type { BaselineIo, Shape } from './baseline-io';
import { checkoutByHandler, idSequence } from './calls';
import { checkoutByPeer, type Peer } from './peer';
import type { PluginUnderTest } from './plugin';
import type { Call } from './timing';

/** The checkouts the bench sets side by side, each readied with a new foreign_id under `prefix`. */
export interface Checkouts {
  ours: Call;
  byHand: (shape?: Shape) => Call;
  peer: Call;
}

export function checkouts(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  peer: Peer,
  prefix: string,
): Checkouts {
  const ourId = idSequence(prefix);
  const byHandId = idSequence(`${prefix}-baseline`);
  const peerId = idSequence(`${prefix}-peer`);
  return {
    ours: () => checkoutByHandler(plugin, ourId()),
    byHand: (shape) => () => {
      const foreignId = byHandId();
      return () => baseline.checkout(foreignId, shape);
    },
    peer: () => checkoutByPeer(plugin, peer, peerId()),
  };
}
