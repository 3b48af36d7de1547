import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PaymentsPluginStack } from './payments-plugin-stack';
import { readSettings } from './settings';
import { VERSION } from '../runtime/version';

/**
 * Adds the plugin stack of the stage `-c stage=...` names, configured from that stage's committed settings
 * (lib/settings.ts), and the cdk-nag AwsSolutions checks.
 */
export function definePaymentsPluginApp(app: App): PaymentsPluginStack {
  const settings = readSettings(app.node);
  // No env: the template is account- and region-agnostic, so synth needs no credentials and makes no lookups.
  const stack = new PaymentsPluginStack(app, `MerchantPaymentsPlugin-${settings.stage}`, {
    settings,
    description: `Merchant Payments plugin backend ${VERSION} (${settings.stage})`,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}
