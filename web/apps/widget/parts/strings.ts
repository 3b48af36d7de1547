// Every word the widget shows, in one table, so that another language is one more table of the same keys.

export const EN = {
  region: 'Payment',
  orderTotal: 'Order total',
  amountToPay: 'Amount to pay',
  address: 'Send to this address',
  tag: 'Destination tag or memo (required)',
  timeLeft: 'Time left to pay',
  copy: 'Copy',
  copyAmount: 'Copy amount',
  copyAddress: 'Copy address',
  copyTag: 'Copy tag',
  copied: 'Copied to the clipboard',
  copyFailed: 'Could not copy: select the text and copy it yourself',
  qrLabel: 'QR code of the payment link, for a wallet app to scan',
  openWallet: 'Open in wallet',
  openPaymentPage: 'Open the payment page',
  choosePayment: 'Choose how to pay on the payment page.',
  continueNow: 'Continue now',
  redirecting: (seconds: number) => `Taking you back to the shop in ${seconds} s.`,
  loading: 'Loading your payment…',
  retrying: 'Cannot reach the payment service right now. Trying again…',
  notFound: 'This payment could not be found. Please go back to the shop and try again.',
  status: {
    creating: 'Preparing your payment…',
    awaiting_payment: 'Waiting for your payment',
    confirming: 'Payment received, waiting for confirmation',
    paid: 'Payment complete. Thank you!',
    underpaid: 'Less than the amount due arrived. You will receive an e-mail about the difference.',
    expired: 'The time to pay has run out.',
    cancelled: 'This payment was cancelled by the shop.',
    failed: 'The payment could not be completed.',
  },
  exception: {
    paid_partial: 'Part of the amount has arrived. Please send the rest.',
    paid_over: 'You sent more than was due. You will be told how to get the difference back.',
    paid_late: 'Your payment arrived after the time ran out. The shop has been told.',
  },
};

export type Strings = typeof EN;
