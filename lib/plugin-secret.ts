import * as path from 'node:path';
import { CustomResource, Duration, RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { PluginFunction } from './plugin-function';
import { PROCESSING_KEY_NAMES, PROCESSING_KEY_PLACEHOLDER } from './secret-keys';

/**
 * The one JSON secret. The template holds only placeholders for the processing keys; a custom resource adds the
 * bearer tokens with crypto-random values after the secret is created, so the tokens never pass through
 * CloudFormation. Kept when the stack is deleted: it holds the merchant's keys.
 */
export class PluginSecret extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // This value must stay as it is: CloudFormation rewrites the whole secret whenever it changes.
    const placeholders = Object.fromEntries(
      PROCESSING_KEY_NAMES.map((name) => [name, SecretValue.unsafePlainText(PROCESSING_KEY_PLACEHOLDER)]),
    );
    this.secret = new Secret(this, 'Secret', {
      description:
        'Merchant Payments plugin: processing keys (set by the operator) and bearer tokens (generated)',
      secretObjectValue: placeholders,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The processing keys are issued in the merchant administration and the bearer tokens are held by the ' +
        'storefront and the back office, so no Lambda can rotate them alone; the operator guide shows how.',
    });

    const filler = new PluginFunction(this, 'FillTokens', {
      entry: path.join(__dirname, 'tokens', 'fill-tokens.ts'),
      description: 'Custom resource: puts the bearer tokens into the plugin secret',
      timeout: Duration.seconds(30),
    });
    filler.allow(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'], [this.secret.secretArn]);
    new CustomResource(this, 'Tokens', {
      serviceToken: filler.function.functionArn,
      resourceType: 'Custom::BearerTokens',
      properties: { SecretId: this.secret.secretArn },
    });
  }

  /** GetSecretValue on this secret only. */
  grantRead(fn: PluginFunction): void {
    fn.allow(['secretsmanager:GetSecretValue'], [this.secret.secretArn]);
  }
}
