import * as path from 'node:path';
import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  PLATFORM_TOKEN_FIELD,
  SECRET_ENV,
  STORE_SECRETS_PREFIX_ENV,
  type SecretName,
} from '../secrets/fields';
import type { StoreSecretAccess } from './routes';
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
  /** Each store's own secret is `<prefix><store id>` (issue 33), created by the function that creates stores. */
  readonly storeSecretsPrefix: string;

  constructor(scope: Construct, id: string, props: PluginSecretsProps) {
    super(scope, id);
    this.secrets = {
      processingKeys: emptySecret(this, 'ProcessingKeys', 'processing keys (put in by the operator)'),
      tokens: emptySecret(this, 'Tokens', 'bearer tokens (generated once, rotated by the operator)'),
      // Its own, so that the dispatcher, which signs with it, can read no token.
      webhookSecret: emptySecret(this, 'WebhookSecret', 'webhook signing secret (put in by the operator)'),
      // Its own, so that a function that only checks a store's tokens never holds the one that manages stores.
      platformToken: emptySecret(this, 'PlatformToken', 'platform token (generated once, manages stores)'),
    };
    this.storeSecretsPrefix = `${Stack.of(this).stackName}/stores/`;
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The processing keys are issued in the merchant administration and the bearer tokens are held by the ' +
        'storefront and the back office, so no Lambda can rotate them alone; the operator guide shows how.',
    });

    const { tokens, platformToken } = this.secrets;
    const filler = new PluginFunction(this, 'FillTokens', {
      entry: path.join(__dirname, 'tokens', 'fill-tokens.ts'),
      description: 'Custom resource: puts the bearer tokens and the platform token into their secrets',
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
    });
    filler.allow(
      ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
      [tokens.secretArn, platformToken.secretArn],
    );
    new CustomResource(this, 'GeneratedTokens', {
      serviceToken: filler.function.functionArn,
      resourceType: 'Custom::BearerTokens',
      properties: { SecretId: tokens.secretArn },
      // Not the default hour: a filler that fails before it answers fails the deploy within a minute.
      serviceTimeout: Duration.seconds(60),
    });
    new CustomResource(this, 'GeneratedPlatformToken', {
      serviceToken: filler.function.functionArn,
      resourceType: 'Custom::BearerTokens',
      properties: { SecretId: platformToken.secretArn, Fields: [PLATFORM_TOKEN_FIELD] },
      serviceTimeout: Duration.seconds(60),
    });
  }

  /**
   * The stores' own secrets, by name prefix: `read` (GetSecretValue), `create` (CreateSecret, and PutSecretValue
   * over one left by an unfinished create), `write` (GetSecretValue and PutSecretValue). A secret's ARN ends in
   * `-` and six random characters, hence the `*`.
   */
  grantStoreSecrets(fn: PluginFunction, access: StoreSecretAccess): void {
    if (access === 'none') return;
    const actions = {
      read: ['secretsmanager:GetSecretValue'],
      create: ['secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue'],
      write: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
    }[access];
    const { partition, region, account } = Stack.of(this);
    fn.allow(actions, [
      `arn:${partition}:secretsmanager:${region}:${account}:secret:${this.storeSecretsPrefix}*`,
    ]);
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${this.storeSecretsPrefix}*]`,
      reason:
        "A secret per store, made when the store is: the stores' secrets share a name prefix, and nothing else does.",
    });
  }

  /** The prefix, under the name the runtime reads it from, for a function that touches stores' secrets. */
  storeSecretsEnvironment(access: StoreSecretAccess): Record<string, string> {
    return access === 'none' ? {} : { [STORE_SECRETS_PREFIX_ENV]: this.storeSecretsPrefix };
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
