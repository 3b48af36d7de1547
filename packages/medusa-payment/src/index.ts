// The package's entry: Medusa's payment module loads the default export, as ModuleProvider(Modules.PAYMENT, …) makes.
import { MerchantPaymentsProvider } from './provider';

export { MerchantPaymentsProvider, type SessionData } from './provider';
export { MerchantPaymentsError } from './errors';
export {
  orderCancelGuard,
  type GuardNext,
  type GuardQuery,
  type GuardRequest,
  type GuardResponse,
  type OrderCancelGuardOptions,
} from './cancel-guard';
export type { MerchantPaymentsOptions } from './options';

// The shape ModuleProvider returns, written out so that nothing of Medusa is imported at run time.
export default { module: 'payment', services: [MerchantPaymentsProvider] };
