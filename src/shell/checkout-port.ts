import type { CheckoutPort } from '../core/checkout-port.ts';
import { readCheckout } from './checkout-reader.ts';
import { Git } from './git.ts';

/** The checkout port of every run: src/shell/git.ts and src/shell/checkout-reader.ts. */
export const shellCheckout: CheckoutPort = {
  git: (options) => new Git(options),
  read: readCheckout,
};
