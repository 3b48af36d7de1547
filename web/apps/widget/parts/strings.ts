// Every word the widget shows, in one table, so that another language is one more table of the same keys.

export const EN = {
  region: 'Payment',
  orderTotal: 'Order total',
  rate: 'Exchange rate',
  paymentSeen: 'Payment seen',
  confirmations: 'Network confirmations',
  noConfirmations: 'None reported yet',
  confirmationsNote:
    'Your payment is on the network, waiting for confirmations. The shop is told once the payment service counts it as confirmed.',
  timeToConfirm: 'Time left to confirm',
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
  seePayment: 'See your payment',
  seePaymentPart: (part: number) => `See your payment ${part}`,
  transaction: 'Transaction',
  redirecting: (seconds: number) => `Taking you back to the shop in ${seconds} s.`,
  loading: 'Loading your payment…',
  retrying: 'Cannot reach the payment service right now. Trying again…',
  notFound: 'This payment could not be found. Please go back to the shop and try again.',
  status: {
    creating: 'Preparing your payment…',
    awaiting_payment: 'Waiting for your payment',
    confirming: 'Payment received, waiting for confirmation',
    paid: 'Payment complete. Thank you!',
    underpaid: 'Less than the amount due arrived, so your order did not go through.',
    expired: 'The time to pay has run out.',
    cancelled: 'This payment was cancelled by the shop.',
    failed: 'The payment could not be completed.',
  },
  exception: {
    paid_partial: 'Part of the amount has arrived. Please send the rest.',
    paid_over: 'You sent more than was due.',
    paid_late: 'Your payment arrived after the time ran out.',
  },
  /** What the customer should do now, once the status is final: an exception's words, where it has them, first. */
  next: {
    paid: 'Your order is paid. You can close this page.',
    underpaid:
      'The payment service will e-mail you how to get your money back. To buy, go back to the shop and order again.',
    expired:
      'Your order did not go through. Do not send money to this address now. To buy, go back to the shop and order again.',
    cancelled:
      'Your order did not go through. Do not send money to this address. If you already sent some, contact the shop.',
    failed:
      'Your order did not go through. If you sent money, contact the shop. To buy, go back to the shop and try again.',
    paid_over:
      'Your order is paid. The shop has been told of the extra and can send it back: contact the shop if you do not hear from it.',
    paid_late:
      'Your order did not go through on its own. The shop has been told of your payment and will contact you to complete the order or return your money.',
  },
};

export type Strings = typeof EN;
