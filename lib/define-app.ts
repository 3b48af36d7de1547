import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PaymentsPluginStack } from './payments-plugin-stack';
import { readSettings } from './settings';

/** Adds the plugin stack, configured from the app's context, and the cdk-nag AwsSolutions checks. */
export function definePaymentsPluginApp(app: App): PaymentsPluginStack {
  const settings = readSettings(app.node);
  // No env: the template is account- and region-agnostic, so synth needs no credentials and makes no lookups.
  const stack = new PaymentsPluginStack(app, `MerchantPaymentsPlugin-${settings.stage}`, {
    settings,
    description: `Merchant Payments plugin backend (${settings.stage})`,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}
