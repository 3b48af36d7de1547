import { Annotations, type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PaymentsPluginStack } from './payments-plugin-stack';
import { readSettings, type PluginSettings } from './settings';
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
  const examples = exampleSettings(settings);
  if (settings.stage === 'production' && examples.length > 0) {
    // A warning, not an error: the committed examples must still synthesize, for the tests and a first look.
    Annotations.of(stack).addWarningV2(
      'merchant-payments:example-settings',
      `Stage "production" still has example settings (${examples.join(', ')}): replace them in cdk.json, ` +
        'under context.stages.production, before deploying.',
    );
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}

/** The settings still on the reserved `.example` domain, as the committed examples are. */
function exampleSettings(settings: PluginSettings): string[] {
  const values: Record<string, string | undefined> = {
    processingBaseUrl: settings.processingBaseUrl,
    alarmEmail: settings.alarmEmail,
    webhookUrl: settings.webhookUrl,
    apiDomainName: settings.apiDomain?.name,
    webDomainName: settings.webDomain?.name,
  };
  return Object.keys(values).filter((key) =>
    /\.example(\/|$)/.test(values[key]?.replace(/^https:\/\//, '') ?? ''),
  );
}
