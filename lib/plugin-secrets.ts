import * as path from 'node:path';
import { CustomResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SECRET_ENV, type SecretName } from '../secrets/fields';
import { PluginFunction } from './plugin-function';

export interface PluginSecretsProps {
  /** Of the custom resource's logs. */
  logRetention: RetentionDays;
}

/**
 * Three secrets, so that a function that only checks tokens cannot read the keys that send withdrawals. Both are
 * created empty: the template holds no value, placeholder or other, that a later deploy could write over what the
 * operator put in. The operator puts the processing keys and the webhook secret in; a custom resource generates the bearer tokens, so they
 * never pass through CloudFormation. Both are kept when the stack is deleted.
 */
export class PluginSecrets extends Construct {
  readonly secrets: Record<SecretName, Secret>;

  constructor(scope: Construct, id: string, props: PluginSecretsProps) {
    super(scope, id);
    this.secrets = {
      processingKeys: emptySecret(this, 'ProcessingKeys', 'processing keys (put in by the operator)'),
      tokens: emptySecret(this, 'Tokens', 'bearer tokens (generated once, rotated by the operator)'),
      // Its own, so that the dispatcher, which signs with it, can read no token.
      webhookSecret: emptySecret(this, 'WebhookSecret', 'webhook signing secret (put in by the operator)'),
    };
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The processing keys are issued in the merchant administration and the bearer tokens are held by the ' +
        'storefront and the back office, so no Lambda can rotate them alone; the operator guide shows how.',
    });

    const tokens = this.secrets.tokens;
    const filler = new PluginFunction(this, 'FillTokens', {
      entry: path.join(__dirname, 'tokens', 'fill-tokens.ts'),
      description: 'Custom resource: puts the bearer tokens into their secret',
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
    });
    filler.allow(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'], [tokens.secretArn]);
    new CustomResource(this, 'GeneratedTokens', {
      serviceToken: filler.function.functionArn,
      resourceType: 'Custom::BearerTokens',
      properties: { SecretId: tokens.secretArn },
      // Not the default hour: a filler that fails before it answers fails the deploy within a minute.
      serviceTimeout: Duration.seconds(60),
    });
  }

  /** GetSecretValue on these secrets, and no other. */
  grantRead(fn: PluginFunction, names: readonly SecretName[]): void {
    if (names.length === 0) return;
    fn.allow(
      ['secretsmanager:GetSecretValue'],
      names.map((name) => this.secrets[name].secretArn),
    );
  }

  /** The ids of these secrets, under the names the runtime reads them from (secrets/fields.ts). */
  environment(names: readonly SecretName[]): Record<string, string> {
    return Object.fromEntries(names.map((name) => [SECRET_ENV[name], this.secrets[name].secretArn]));
  }
}

function emptySecret(scope: Construct, id: string, what: string): Secret {
  const secret = new Secret(scope, id, {
    description: `Merchant Payments plugin: ${what}`,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // With no value given, the construct would have CloudFormation generate one; with neither property,
  // CloudFormation creates the secret with no value at all, and never writes one.
  (secret.node.defaultChild as CfnSecret).addPropertyDeletionOverride('GenerateSecretString');
  return secret;
}
