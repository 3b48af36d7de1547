import { DELIVERIES_DUE_INDEX, OPEN_ITEMS_INDEX } from '../../store/schema';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { definePaymentsPluginApp } from '../../lib/define-app';
import { CLAIM_LINK_FUNCTIONS, type PaymentsPluginStack } from '../../lib/payments-plugin-stack';
import { PluginFunction } from '../../lib/plugin-function';
import { jobs, LIMITED_BY_ACCESS, routes, scheduledJobs, THROTTLE_BY_ACCESS } from '../../lib/routes';
import { DEFAULT_STORE_REQUESTS_PER_SECOND } from '../../domain/request-limits';
import type { RawSettings } from '../../lib/settings';
import type { SecretName } from '../../secrets/fields';
import { stageContext } from '../support/stage-context';
import { version } from '../../package.json';

const ROOT = path.join(__dirname, '..', '..');

// The brief's least-privilege table, written out here rather than imported: the route table must keep it for these
// functions, and the stack grants exactly what the route table says for every function, a route added later too.
const TABLE_ACTIONS: Record<string, string[]> = {
  checkout: ['GetItem', 'PutItem', 'UpdateItem'],
  'get-invoice': ['GetItem'],
  'list-invoices': ['GetItem', 'BatchGetItem'],
  'cancel-invoice': ['GetItem', 'UpdateItem'],
  rates: ['GetItem'],
  pairs: ['GetItem'],
  'checkout-options': ['GetItem'],
  'lookup-transaction': ['GetItem'],
  'get-balances': ['GetItem', 'Query', 'PutItem'],
  'balance-history': ['GetItem', 'Query'],
  'create-refund': ['GetItem', 'PutItem', 'UpdateItem'],
  'refund-invoice': ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
  'list-refunds': ['GetItem', 'BatchGetItem'],
  'get-refund': ['GetItem', 'UpdateItem'],
  callbacks: ['GetItem', 'UpdateItem'],
  'store-callbacks': ['GetItem', 'UpdateItem'],
  // GetItem and the `created` index: the registry's stores with their own account, each snapshot too.
  'snapshot-balances': ['GetItem', 'PutItem'],
  reconcile: ['Query', 'GetItem', 'UpdateItem', 'DeleteItem'],
  'list-webhook-deliveries': ['GetItem', 'BatchGetItem'],
  'resend-webhook': ['GetItem', 'PutItem'],
  'resend-failed-webhooks': ['GetItem', 'PutItem'],
  'webhook-dispatcher': ['GetItem', 'PutItem', 'UpdateItem'],
  // Stores (issue 33): a store item and its tokens' items, one conditional write each.
  'create-store': ['GetItem', 'PutItem'],
  'list-stores': ['GetItem'],
  'get-store': ['GetItem'],
  'update-store': ['GetItem', 'PutItem'],
  'rotate-store-tokens': ['GetItem', 'PutItem'],
  'rotate-store-webhook-secret': ['GetItem', 'PutItem'],
  'disable-store': ['GetItem', 'PutItem'],
  'enable-store': ['GetItem', 'PutItem'],
  'current-token': ['GetItem'],
};

// The secondary indexes a function may query; the others may query none.
const QUERIED_INDEXES: Record<string, string[]> = {
  'list-invoices': ['created'],
  'list-refunds': ['created'],
  reconcile: ['open-items'],
  'list-webhook-deliveries': ['created'],
  'resend-failed-webhooks': ['deliveries-due'],
  'webhook-dispatcher': ['deliveries-due'],
  'list-stores': ['created'],
  // Whether a shared store has orders, before it moves to its own account.
  'snapshot-balances': ['created'],
};

// Which secrets each function may read, written out: a function that only checks tokens must never be able to read
// the processing keys, which can send withdrawals. Like the table above, checked against the route table.
const SECRET_READS: Record<string, Array<SecretName>> = {
  checkout: ['tokens', 'platformToken', 'processingKeys'],
  'get-invoice': ['tokens', 'platformToken'],
  'list-invoices': ['tokens', 'platformToken'],
  'cancel-invoice': ['tokens', 'platformToken', 'processingKeys'],
  rates: ['tokens', 'platformToken', 'processingKeys'],
  pairs: ['tokens', 'platformToken', 'processingKeys'],
  'checkout-options': ['tokens', 'platformToken', 'processingKeys'],
  'lookup-transaction': ['tokens', 'platformToken', 'processingKeys'],
  'get-balances': ['tokens', 'platformToken', 'processingKeys'],
  'balance-history': ['tokens', 'platformToken'],
  'create-refund': ['tokens', 'platformToken', 'processingKeys'],
  'refund-invoice': ['tokens', 'platformToken', 'processingKeys'],
  'list-refunds': ['tokens', 'platformToken'],
  'get-refund': ['tokens', 'platformToken', 'processingKeys'],
  callbacks: ['processingKeys'],
  // Verified with the store's own keys, from the stores' secrets.
  'store-callbacks': [],
  openapi: [],
  'snapshot-balances': ['processingKeys'],
  reconcile: ['processingKeys'],
  'list-webhook-deliveries': ['tokens', 'platformToken'],
  'resend-webhook': ['tokens', 'platformToken'],
  'resend-failed-webhooks': ['tokens', 'platformToken'],
  'webhook-dispatcher': ['webhookSecret'],
  'create-store': ['tokens', 'platformToken'],
  'list-stores': ['tokens', 'platformToken'],
  'get-store': ['tokens', 'platformToken'],
  'update-store': ['tokens', 'platformToken'],
  'rotate-store-tokens': ['tokens', 'platformToken'],
  'rotate-store-webhook-secret': ['tokens', 'platformToken'],
  'disable-store': ['tokens', 'platformToken'],
  'enable-store': ['tokens', 'platformToken'],
  'current-token': ['tokens', 'platformToken'],
};

// What each function may do with the stores' own secrets, by name prefix: only create-store creates them, only
// update-store writes them, and only the functions that sign or verify with a store's keys read them.
const STORE_SECRET_ACCESS: Record<string, 'read' | 'create' | 'write'> = {
  'create-store': 'create',
  'update-store': 'write',
  'rotate-store-webhook-secret': 'write',
  ...Object.fromEntries(
    [
      'checkout',
      'cancel-invoice',
      'refund-invoice',
      'create-refund',
      'get-refund',
      'claim-refund',
      'rates',
      'pairs',
      'checkout-options',
      'get-balances',
      'lookup-transaction',
      'health',
      'callbacks',
      'store-callbacks',
      'snapshot-balances',
      'reconcile',
      'webhook-dispatcher',
    ].map((name) => [name, 'read' as const]),
  ),
};
const STORE_SECRET_ACTIONS = {
  read: ['GetSecretValue'],
  create: ['CreateSecret', 'PutSecretValue'],
  write: ['GetSecretValue', 'PutSecretValue'],
};
const storeSecretActionsOf = (name: string) =>
  STORE_SECRET_ACCESS[name] ? STORE_SECRET_ACTIONS[STORE_SECRET_ACCESS[name]] : [];

function synth(settings: RawSettings = {}) {
  // Skips bundling: these tests read the template, not the code.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...stageContext(settings) } });
  const stack = definePaymentsPluginApp(app);
  return { stack, template: Template.fromStack(stack) };
}

const sandbox = synth();
const PRODUCTION_CONTEXT = {
  stage: 'production',
  processingBaseUrl: 'https://api.processing.test',
  snapshotRate: 'rate(30 minutes)',
  reconcileRate: 'rate(2 minutes)',
  alarmEmail: 'ops@merchant.test',
  webhookUrl: 'none',
};
const production = synth(PRODUCTION_CONTEXT);
const template = sandbox.template;

const ref = (id: string) => ({ Ref: id });
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const onlyId = (resources: Record<string, unknown>) => {
  const ids = Object.keys(resources);
  expect(ids).toHaveLength(1);
  return ids[0];
};
const tableId = onlyId(template.findResources('AWS::DynamoDB::GlobalTable'));
const secretIdOf = (what: string) =>
  onlyId(
    template.findResources('AWS::SecretsManager::Secret', {
      Properties: { Description: Match.stringLikeRegexp(what) },
    }),
  );
const secretIds: Record<SecretName, string> = {
  processingKeys: secretIdOf('processing keys'),
  tokens: secretIdOf('bearer tokens'),
  webhookSecret: secretIdOf('webhook signing secret'),
  platformToken: secretIdOf('platform token'),
};
const SECRET_ENV: Record<SecretName, string> = {
  processingKeys: 'PROCESSING_KEYS_SECRET_ID',
  tokens: 'TOKENS_SECRET_ID',
  webhookSecret: 'WEBHOOK_SECRET_ID',
  platformToken: 'PLATFORM_TOKEN_SECRET_ID',
};
/** The stores' own secrets, by name: the stack's name, then `/stores/` (a sandbox stage's stack here). */
const STORE_SECRETS_PREFIX = 'MerchantPaymentsPlugin-sandbox/stores/';
const storeSecretsArn = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':secretsmanager:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:secret:${STORE_SECRETS_PREFIX}*`,
    ],
  ],
};
const queueId = onlyId(template.findResources('AWS::SQS::Queue'));
const functions = template.findResources('AWS::Lambda::Function');
const allNames = [...routes.map((r) => r.name), ...scheduledJobs];
/** What lib/routes.ts says a route or a job needs; the stack must grant it and nothing more. */
const factsOf = (name: string) => [...routes, ...jobs].find((facts) => facts.name === name)!;
const secretReadsOf = (name: string) => factsOf(name).secrets as readonly SecretName[];
/** Whether the function counts its store's requests (lib/routes.ts, LIMITED_BY_ACCESS). */
const isLimited = (name: string) => {
  const facts = factsOf(name);
  return 'access' in facts && LIMITED_BY_ACCESS[facts.access];
};

/** The logical id of the function a route or a schedule invokes, read from the template. */
function functionIdFor(name: string): string {
  const route = routes.find((r) => r.name === name);
  if (route) {
    const [apiRoute] = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', {
        Properties: { RouteKey: `${route.method} ${route.path}` },
      }),
    );
    const integrationId = apiRoute.Properties.Target['Fn::Join'][1][1].Ref as string;
    const integration = template.toJSON().Resources[integrationId];
    return integration.Properties.IntegrationUri['Fn::GetAtt'][0];
  }
  const [schedule] = Object.values(template.findResources('AWS::Scheduler::Schedule')).filter(
    (s) => JSON.parse(s.Properties.Target.Input).job === name,
  );
  return schedule.Properties.Target.Arn['Fn::GetAtt'][0];
}

/** The PluginFunction construct that owns the CloudFormation function with this logical id. */
function pluginFunctionOf(stack: PaymentsPluginStack, logicalId: string): PluginFunction {
  const cfn = stack.node
    .findAll()
    .find((c): c is CfnFunction => c instanceof CfnFunction && stack.getLogicalId(c) === logicalId);
  const owner = cfn?.node.scopes.find((scope): scope is PluginFunction => scope instanceof PluginFunction);
  if (!owner) throw new Error(`no PluginFunction owns ${logicalId}`);
  return owner;
}

/** Every (action, resource) pair the policies attached to a role allow. */
function grantsOf(roleId: string, from = template): string[] {
  const policies = from.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(roleId)] } });
  const grants: string[] = [];
  for (const policy of Object.values(policies)) {
    for (const statement of policy.Properties.PolicyDocument.Statement) {
      expect(statement.Effect).toBe('Allow');
      for (const action of [statement.Action].flat()) {
        for (const resource of [statement.Resource].flat())
          grants.push(grant(action, resource, statement.Condition));
      }
    }
  }
  return grants.sort();
}

const grant = (action: string, resource: unknown, condition?: unknown) =>
  `${action} ${JSON.stringify(resource)}${condition === undefined ? '' : ` when ${JSON.stringify(condition)}`}`;

/** Each route's key; a customer route's CORS preflight is a route of its own, to the same function. */
const routeKeys = routes.flatMap((route) =>
  [route.method, ...(route.access === 'customer' ? ['OPTIONS'] : [])].map((method) => ({
    key: `${method} ${route.path}`,
    route,
  })),
);

describe('functions', () => {
  test('every route and job reaches its own function, whose entry is the module the route table names', () => {
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Route'))).toHaveLength(routeKeys.length);
    const ids = allNames.map(functionIdFor);
    expect(new Set(ids).size).toBe(allNames.length);
    allNames.forEach((name, i) => {
      const entry = pluginFunctionOf(sandbox.stack, ids[i]).entry;
      expect(entry).toBe(path.join(ROOT, 'functions', `${name}.ts`));
      expect(existsSync(entry)).toBe(true);
      expect(functions[ids[i]].Properties.Handler).toBe('index.handler');
    });
  });

  test('every function has the same runtime, logging and environment, and no X-Ray', () => {
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    // The route and job functions plus the custom resource that fills the tokens.
    expect(Object.keys(functions)).toHaveLength(allNames.length + 1);
    for (const fn of Object.values(functions)) {
      const props = fn.Properties;
      expect(props).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 512,
        Environment: {
          Variables: expect.objectContaining({
            NODE_OPTIONS: '--enable-source-maps',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          }),
        },
      });
      expect(props.VpcConfig).toBeUndefined();
      expect(props.TracingConfig).toBeUndefined();
      expect(logGroups[props.LoggingConfig.LogGroup.Ref].Properties.RetentionInDays).toBe(30);
    }
    const logGroupIds = Object.values(functions).map((fn) => fn.Properties.LoggingConfig.LogGroup.Ref);
    expect(new Set(logGroupIds).size).toBe(logGroupIds.length);
  });

  test('route and job functions get the table, the ids of the secrets they may read and the service URL', () => {
    for (const name of allNames) {
      const secrets = secretReadsOf(name).map((secret) => [SECRET_ENV[secret], ref(secretIds[secret])]);
      expect(functions[functionIdFor(name)].Properties.Environment.Variables).toEqual({
        TABLE_NAME: ref(tableId),
        ...Object.fromEntries(secrets),
        ...(STORE_SECRET_ACCESS[name] && { STORE_SECRETS_PREFIX }),
        ...((CLAIM_LINK_FUNCTIONS as readonly string[]).includes(name) && {
          // The web distribution's claim page.
          CLAIM_PAGE_URL: { 'Fn::Join': ['', expect.arrayContaining(['/claim/'])] },
        }),
        PROCESSING_BASE_URL: 'https://sandbox.processing.example',
        ...(isLimited(name) && { STORE_REQUESTS_PER_SECOND: String(DEFAULT_STORE_REQUESTS_PER_SECOND) }),
        STAGE: 'sandbox',
        OPEN_SHARDS: String(OPEN_ITEMS_INDEX.shards),
        DUE_SHARDS: String(DELIVERIES_DUE_INDEX.shards),
        NODE_OPTIONS: '--enable-source-maps',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
      const isJob = (scheduledJobs as readonly string[]).includes(name);
      expect(functions[functionIdFor(name)].Properties.Timeout).toBe(isJob ? 120 : 25);
    }
    const prodFunctions = production.template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { PROCESSING_BASE_URL: 'https://api.processing.test' } } },
    });
    expect(Object.keys(prodFunctions)).toHaveLength(allNames.length);
  });

  test.each(Object.keys(TABLE_ACTIONS))(
    "the route table keeps the brief's least privilege for %s",
    (name) => {
      const { data } = factsOf(name);
      expect([...data.table].sort()).toEqual([...TABLE_ACTIONS[name]].sort());
      expect([...secretReadsOf(name)].sort()).toEqual([...SECRET_READS[name]].sort());
      expect('queriedIndexes' in data ? [...data.queriedIndexes].sort() : []).toEqual(
        QUERIED_INDEXES[name] ?? [],
      );
      expect(factsOf(name).storeSecrets).toBe(STORE_SECRET_ACCESS[name] ?? 'none');
    },
  );

  test.each(allNames)('%s holds exactly the grants its route table entry names', (name) => {
    const fn = functions[functionIdFor(name)].Properties;
    const logGroupArn = arnOf(fn.LoggingConfig.LogGroup.Ref);
    const { data } = factsOf(name);
    const expected = [
      grant('logs:CreateLogStream', logGroupArn),
      grant('logs:PutLogEvents', logGroupArn),
      ...secretReadsOf(name).map((secret) => grant('secretsmanager:GetSecretValue', ref(secretIds[secret]))),
      ...data.table.map((action) => grant(`dynamodb:${action}`, arnOf(tableId))),
      ...storeSecretActionsOf(name).map((action) => grant(`secretsmanager:${action}`, storeSecretsArn)),
      // A store's request count: its lease items alone.
      ...(isLimited(name)
        ? [
            grant('dynamodb:UpdateItem', arnOf(tableId), {
              'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LIMIT#*'] },
            }),
          ]
        : []),
    ];
    const indexArn = (index: string) => ({ 'Fn::Join': ['', [arnOf(tableId), `/index/${index}`]] });
    for (const index of 'queriedIndexes' in data ? data.queriedIndexes : [])
      expected.push(grant('dynamodb:Query', indexArn(index)));
    if ((scheduledJobs as readonly string[]).includes(name))
      expected.push(grant('sqs:SendMessage', arnOf(queueId)));
    expect(grantsOf(fn.Role['Fn::GetAtt'][0])).toEqual(expected.sort());
  });

  test("the stage's storeRequestsPerSecond reaches every function that counts a store's requests, and no other", () => {
    const given = synth({ storeRequestsPerSecond: 500 }).template;
    const limits = Object.values(given.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Environment.Variables.STORE_REQUESTS_PER_SECOND,
    );
    expect(limits.filter((limit) => limit !== undefined)).toEqual(
      allNames.filter(isLimited).map(() => '500'),
    );
  });

  test('callbacks have 20 concurrent runs of their own, reconcile exactly one; the rest share the pool', () => {
    const reserved = Object.fromEntries(
      allNames.map((name) => [name, functions[functionIdFor(name)].Properties.ReservedConcurrentExecutions]),
    );
    expect(Object.fromEntries(Object.entries(reserved).filter(([, value]) => value !== undefined))).toEqual({
      callbacks: 20,
      reconcile: 1,
      'webhook-dispatcher': 2,
    });
  });

  test('logs are kept 30 days in a sandbox, a year in production, or as long as logRetentionDays says', () => {
    const retentions = (t: Template) =>
      new Set(Object.values(t.findResources('AWS::Logs::LogGroup')).map((g) => g.Properties.RetentionInDays));
    // Every function's log group and the API access logs.
    expect(Object.keys(template.findResources('AWS::Logs::LogGroup'))).toHaveLength(allNames.length + 2);
    expect(retentions(template)).toEqual(new Set([30]));
    expect(retentions(production.template)).toEqual(new Set([365]));
    expect(retentions(synth({ logRetentionDays: '90' }).template)).toEqual(new Set([90]));
  });

  test('no role has a managed or inline policy', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.Policies).toBeUndefined();
    }
  });
});

describe('table', () => {
  test('keys, on-demand billing, PITR, TTL, the keys-only open-items and created indexes, retained', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'gsi1pk', AttributeType: 'S' },
          { AttributeName: 'gsi1sk', AttributeType: 'S' },
          { AttributeName: 'gsi2pk', AttributeType: 'S' },
          { AttributeName: 'gsi2sk', AttributeType: 'S' },
          { AttributeName: 'gsi3pk', AttributeType: 'S' },
          { AttributeName: 'gsi3sk', AttributeType: 'S' },
        ]),
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        GlobalSecondaryIndexes: [
          {
            IndexName: 'open-items',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
          {
            IndexName: 'created',
            KeySchema: [
              { AttributeName: 'gsi2pk', KeyType: 'HASH' },
              { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
          {
            IndexName: 'deliveries-due',
            KeySchema: [
              { AttributeName: 'gsi3pk', KeyType: 'HASH' },
              { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: false,
          }),
        ],
      },
    });
  });

  test('production turns deletion protection on', () => {
    production.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
  });
});

describe('secrets', () => {
  test('four secrets, all created with no value (nothing a later deploy could write over) and retained', () => {
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    expect(Object.keys(secrets).sort()).toEqual(Object.values(secretIds).sort());
    for (const secret of Object.values(secrets)) {
      expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(secret.Properties.SecretString).toBeUndefined();
      expect(secret.Properties.GenerateSecretString).toBeUndefined();
    }
  });

  test('only the functions that sign or verify with the processing keys may read them', () => {
    const readers = (secret: string) =>
      Object.entries(functions)
        .filter(([, fn]) => grantsOf(fn.Properties.Role['Fn::GetAtt'][0]).some((g) => g.includes(secret)))
        .map(([id]) => id)
        .sort();
    const expected = (secret: 'processingKeys' | 'tokens') =>
      allNames
        .filter((name) => secretReadsOf(name).includes(secret))
        .map(functionIdFor)
        .sort();
    expect(readers(secretIds.processingKeys)).toEqual(expected('processingKeys'));
    expect(readers(secretIds.processingKeys)).not.toContain(functionIdFor('get-invoice'));
    expect(readers(secretIds.processingKeys)).not.toContain(functionIdFor('balance-history'));
    expect(readers(secretIds.processingKeys)).not.toContain(functionIdFor('store-callbacks'));
    // The custom resource that fills the tokens reads them too.
    const [tokensId] = Object.keys(template.findResources('Custom::BearerTokens'));
    const fillerId = template.toJSON().Resources[tokensId].Properties.ServiceToken['Fn::GetAtt'][0];
    expect(readers(secretIds.tokens)).toEqual([...expected('tokens'), fillerId].sort());
    expect(readers(secretIds.platformToken)).toEqual(
      allNames
        .filter((name) => secretReadsOf(name).includes('platformToken'))
        .map(functionIdFor)
        .concat(fillerId)
        .sort(),
    );
  });

  test('a custom resource fills the tokens, another the platform token; the filler reads and writes those secrets only and returns nothing', () => {
    const fillers = template.findResources('Custom::BearerTokens');
    expect(Object.keys(fillers)).toHaveLength(2);
    const [tokensId, platformId] = ['bearer', 'platform'].map((what) =>
      Object.keys(fillers).find((id) =>
        id.toLowerCase().includes(what === 'bearer' ? 'generatedtokens' : 'platformtoken'),
      )!,
    );
    const tokens = template.toJSON().Resources[tokensId];
    const platform = template.toJSON().Resources[platformId];
    expect(platform.Properties.SecretId).toEqual(ref(secretIds.platformToken));
    expect(platform.Properties.Fields).toEqual(['platform_token']);
    expect(platform.Properties.ServiceToken).toEqual(tokens.Properties.ServiceToken);
    expect(Object.keys(tokens.Properties).sort()).toEqual(['SecretId', 'ServiceTimeout', 'ServiceToken']);
    // CloudFormation waits a minute, not its default hour, for a filler that fails before it answers.
    expect(Number(tokens.Properties.ServiceTimeout)).toBe(60);
    expect(tokens.Properties.SecretId).toEqual(ref(secretIds.tokens));
    const fillerId = tokens.Properties.ServiceToken['Fn::GetAtt'][0];
    expect(pluginFunctionOf(sandbox.stack, fillerId).entry).toBe(
      path.join(ROOT, 'lib', 'tokens', 'fill-tokens.ts'),
    );
    const filler = functions[fillerId].Properties;
    const logGroupArn = arnOf(filler.LoggingConfig.LogGroup.Ref);
    expect(grantsOf(filler.Role['Fn::GetAtt'][0])).toEqual(
      [
        grant('logs:CreateLogStream', logGroupArn),
        grant('logs:PutLogEvents', logGroupArn),
        grant('secretsmanager:GetSecretValue', ref(secretIds.tokens)),
        grant('secretsmanager:PutSecretValue', ref(secretIds.tokens)),
        grant('secretsmanager:GetSecretValue', ref(secretIds.platformToken)),
        grant('secretsmanager:PutSecretValue', ref(secretIds.platformToken)),
      ].sort(),
    );
    // Nothing reads an attribute of the custom resources, so no token can reach an output.
    for (const id of [tokensId, platformId])
      expect(JSON.stringify(template.toJSON())).not.toContain(`"Fn::GetAtt":["${id}"`);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/storefront_token|admin_token/);
  });
});

describe('scheduled jobs', () => {
  test('each job runs on its configured rate, with a retry policy and the dead-letter queue', () => {
    const expressions = { 'snapshot-balances': 'rate(30 minutes)', reconcile: 'rate(2 minutes)' };
    for (const [job, expression] of Object.entries(expressions)) {
      production.template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: expression,
        State: 'ENABLED',
        Target: Match.objectLike({
          Input: Match.serializedJson({ job, scheduledTime: '<aws.scheduler.scheduled-time>' }),
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 900 },
          DeadLetterConfig: { Arn: Match.objectLike({ 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }) },
        }),
      });
    }
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule'));
    expect(schedules.map((s) => s.Properties.ScheduleExpression).sort()).toEqual([
      'rate(1 hour)',
      'rate(1 minute)',
      'rate(1 minute)',
    ]);
    for (const schedule of schedules) {
      expect(schedule.Properties.Target.DeadLetterConfig.Arn).toEqual(arnOf(queueId));
      const roleId = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0];
      const fnArn = schedule.Properties.Target.Arn;
      expect(grantsOf(roleId)).toEqual(
        [
          grant('lambda:InvokeFunction', fnArn),
          grant('lambda:InvokeFunction', { 'Fn::Join': ['', [fnArn, ':*']] }),
          grant('sqs:SendMessage', arnOf(queueId)),
        ].sort(),
      );
    }
  });

  test('a job that fails after its async retries also lands in the dead-letter queue', () => {
    for (const job of scheduledJobs) {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: ref(functionIdFor(job)),
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: arnOf(queueId) } },
      });
    }
  });

  test('the dead-letter queue is encrypted and refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [ref(queueId)],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('HTTP API', () => {
  test("every route has its own throttle, its class's in the route table (test/lib/routes.test.ts: by its scope)", () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0];
    const props = stage.Properties;
    expect(props.StageName).toBe('$default');
    expect(props.AutoDeploy).toBe(true);
    const admin = { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 };
    const busy = { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 };
    expect(props.DefaultRouteSettings).toEqual(admin);
    expect(props.RouteSettings).toEqual(
      Object.fromEntries(
        routeKeys.map(({ key, route }) => [key, THROTTLE_BY_ACCESS[route.access] === 'admin' ? admin : busy]),
      ),
    );
    const accessLogsId = props.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    expect(template.toJSON().Resources[accessLogsId].Type).toBe('AWS::Logs::LogGroup');
    expect(JSON.parse(props.AccessLogSettings.Format)).toMatchObject({ requestId: '$context.requestId' });
    // Route settings name routes by key, so the stage is created after every route.
    const routeIds = Object.keys(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test('routes send the version 2.0 payload to their function', () => {
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(routes.length);
    for (const integration of integrations) {
      expect(integration.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
      });
    }
  });
});

describe('alarms', () => {
  const alarmsOf = (t: Template) =>
    Object.values(t.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);

  const lambdaAlarms = (name: string, metric: string) =>
    alarmsOf(template).filter(
      (a) =>
        a.MetricName === metric &&
        a.Namespace === 'AWS/Lambda' &&
        JSON.stringify(a.Dimensions) ===
          JSON.stringify([{ Name: 'FunctionName', Value: ref(functionIdFor(name)) }]),
    );

  test('each function has an errors and a throttles alarm; every alarm fires on a breach in one period', () => {
    for (const name of allNames) {
      expect(lambdaAlarms(name, 'Errors')).toEqual([expect.objectContaining({ Threshold: 0 })]);
      if (name === 'webhook-dispatcher') continue;
      expect(lambdaAlarms(name, 'Throttles')).toEqual([expect.objectContaining({ Threshold: 0 })]);
    }
    for (const alarm of alarmsOf(template)) {
      expect(alarm).toMatchObject({
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.AlarmActions).toBeUndefined();
    }
    expect(template.findResources('AWS::SNS::Topic')).toEqual({});
  });

  test('each function has an alarm on its longest run passing 80% of its timeout', () => {
    for (const name of allNames) {
      const timeoutSeconds = functions[functionIdFor(name)].Properties.Timeout;
      expect(lambdaAlarms(name, 'Duration')).toEqual([
        expect.objectContaining({ Statistic: 'Maximum', Threshold: 0.8 * timeoutSeconds * 1000 }),
      ]);
    }
  });

  test('the API has a 5xx and a p99 latency alarm', () => {
    const apiId = onlyId(template.findResources('AWS::ApiGatewayV2::Api'));
    const dimensions = [{ Name: 'ApiId', Value: ref(apiId) }];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: dimensions,
      Statistic: 'Sum',
      Threshold: 0,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: dimensions,
      ExtendedStatistic: 'p99',
      Threshold: 5000,
    });
  });

  test('DynamoDB throttles on every operation the functions use have an alarm', () => {
    const [throttles] = alarmsOf(template).filter((a) =>
      JSON.stringify(a.Metrics ?? []).includes('ThrottledRequests'),
    );
    const operations = throttles.Metrics.filter((m: any) => m.MetricStat).map((m: any) => {
      expect(m.MetricStat.Metric).toMatchObject({
        Namespace: 'AWS/DynamoDB',
        MetricName: 'ThrottledRequests',
      });
      expect(m.MetricStat.Stat).toBe('Sum');
      const dimensions = Object.fromEntries(
        m.MetricStat.Metric.Dimensions.map((d: any) => [d.Name, d.Value]),
      );
      expect(dimensions.TableName).toEqual(ref(tableId));
      return dimensions.Operation;
    });
    expect(operations.sort()).toEqual([
      'BatchGetItem',
      'DeleteItem',
      'GetItem',
      'PutItem',
      'Query',
      'UpdateItem',
    ]);
    // A term with no data counts 0, so one operation's throttles are not lost for want of the others'.
    const [expression] = throttles.Metrics.filter((m: any) => m.Expression);
    expect(expression.ReturnData).toBe(true);
    expect(expression.Expression.split(' + ').sort()).toEqual(
      throttles.Metrics.filter((m: any) => m.MetricStat)
        .map((m: any) => `FILL(${m.Id}, 0)`)
        .sort(),
    );
    expect(throttles.Threshold).toBe(0);
  });

  test('the dead-letter queue depth and the two custom metrics have alarms', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    for (const metric of [
      'UpstreamServerErrors',
      'CallbackSignatureFailures',
      'WebhookDeliveryFailures',
      'InvoiceLookupNotFound',
      'NewsMismatch',
    ]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'MerchantPayments',
        MetricName: metric,
        Dimensions: [
          { Name: 'Service', Value: 'payments-plugin' },
          { Name: 'Stage', Value: 'sandbox' },
        ],
        Statistic: 'Sum',
        TreatMissingData: 'notBreaching',
      });
    }
  });

  test('with alarmEmail, an encrypted topic that CloudWatch may publish to e-mails every alarm', () => {
    const t = production.template;
    const topicId = onlyId(t.findResources('AWS::SNS::Topic'));
    const keyId = onlyId(t.findResources('AWS::KMS::Key'));
    t.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: arnOf(keyId) });
    t.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: ref(topicId),
            Condition: {
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            },
          }),
        ]),
      },
    });
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@merchant.test' });
    const alarms = alarmsOf(t);
    expect(alarms).toHaveLength(alarmsOf(template).length);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([ref(topicId)]);
      // The person paged also hears when it is over.
      expect(alarm.OKActions).toEqual([ref(topicId)]);
    }
  });

  test('with alarmTopicArn, every alarm also goes to that topic', () => {
    const alarmTopicArn = 'arn:aws:sns:eu-central-1:123456789012:ops-alarms';
    const { template: t } = synth({ ...PRODUCTION_CONTEXT, alarmEmail: undefined, alarmTopicArn });
    expect(t.findResources('AWS::SNS::Topic')).toEqual({});
    const alarms = alarmsOf(t);
    expect(alarms).toHaveLength(alarmsOf(template).length);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([alarmTopicArn]);
      expect(alarm.OKActions).toEqual([alarmTopicArn]);
    }
  });

  test('no alarm on a throttle that happens by design: the dispatcher shares its 2 slots (docs/webhooks.md)', () => {
    expect(lambdaAlarms('webhook-dispatcher', 'Throttles')).toEqual([]);
    expect(lambdaAlarms('webhook-dispatcher', 'Errors')).toHaveLength(1);
  });

  test("every custom metric, in the alarms and on the dashboard, is the stage's own", () => {
    for (const [t, stage] of [
      [template, 'sandbox'],
      [production.template, 'production'],
    ] as const) {
      const custom = alarmsOf(t).filter((a) => a.Namespace === 'MerchantPayments');
      expect(custom.length).toBeGreaterThanOrEqual(3);
      for (const alarm of custom) {
        expect(alarm.Dimensions).toEqual([
          { Name: 'Service', Value: 'payments-plugin' },
          { Name: 'Stage', Value: stage },
        ]);
      }
      const [dashboard] = Object.values(t.findResources('AWS::CloudWatch::Dashboard'));
      const body = JSON.stringify(dashboard.Properties.DashboardBody);
      const onDashboard = body.match(/\[\\"MerchantPayments\\"[^\]]*\]/g) ?? [];
      expect(onDashboard.length).toBeGreaterThanOrEqual(3);
      for (const metric of onDashboard) {
        expect(metric).toContain(`\\"Service\\",\\"payments-plugin\\",\\"Stage\\",\\"${stage}\\"`);
      }
    }
  });
});

describe('dashboard', () => {
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const body = JSON.stringify(dashboard.Properties.DashboardBody);

  test('one dashboard: alarms, traffic, errors, p99 latency, webhooks and the reconcile job', () => {
    expect(Object.keys(template.findResources('AWS::CloudWatch::Dashboard'))).toHaveLength(1);
    for (const title of [
      'Alarms',
      'Checkouts, polls and callbacks',
      'Errors',
      'p99 latency',
      'Webhooks: backlog and failures',
      'Webhook deliveries',
      'The reconcile job',
    ]) {
      expect(body).toContain(`\\"title\\":\\"${title}`);
    }
    for (const name of ['checkout', 'get-invoice', 'public-invoice', 'callbacks']) {
      expect(body).toContain(JSON.stringify(ref(functionIdFor(name))));
    }
    expect(body).toContain('p99');
    expect(body).toContain('reconciliation sweep done');
  });

  test("webhook failures per store: a line for each store, this stage's, while the alarm watches the total", () => {
    // The body is JSON inside the template's JSON: quotes come escaped twice.
    const unescaped = body.replace(/\\+"/g, '"');
    expect(unescaped).toContain(
      `SEARCH('{MerchantPayments,Service,Stage,Store} MetricName="WebhookDeliveryFailures" Service="payments-plugin" Stage="sandbox"', 'Sum', 300)`,
    );
    expect(unescaped).toContain("given up for store ${PROP('Dim.Store')}");
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const failures = alarms.filter((alarm) => alarm.MetricName === 'WebhookDeliveryFailures');
    expect(failures.map((alarm) => alarm.Dimensions.map((d: { Name: string }) => d.Name))).toEqual([
      ['Service', 'Stage'],
    ]);
    expect(template.toJSON().Outputs.DashboardName.Value).toEqual({
      Ref: onlyId(template.findResources('AWS::CloudWatch::Dashboard')),
    });
  });
});

describe('app', () => {
  test('outputs the API URL, the callback URL, the names of the two secrets and the web apps URLs', () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual([
      'ApiUrl',
      'CallbackUrl',
      'ConsoleUrl',
      'DashboardName',
      'DemoUrl',
      'PlatformTokenSecretName',
      'ProcessingKeysSecretName',
      'TokensSecretName',
      'Version',
      'WebhookSecretName',
      'WidgetModuleUrl',
    ]);
    expect(outputs.Version.Value).toBe(version);
    expect(sandbox.stack.templateOptions.description).toBe(
      `Merchant Payments plugin backend ${version} (sandbox)`,
    );
    const webUrl = (name: string) => outputs[name].Value['Fn::Join'][1].at(-1);
    expect([webUrl('ConsoleUrl'), webUrl('DemoUrl'), webUrl('WidgetModuleUrl')]).toEqual([
      '/console/',
      '/demo/',
      '/widget/widget.js',
    ]);
    const apiUrl = outputs.ApiUrl.Value['Fn::Join'][1];
    expect(apiUrl.at(-1)).toBe('/');
    expect(outputs.CallbackUrl.Value['Fn::Join'][1]).toEqual([...apiUrl.slice(0, -1), '/callbacks']);
    expect(JSON.stringify(outputs.ProcessingKeysSecretName.Value)).toContain(
      `"Ref":"${secretIds.processingKeys}"`,
    );
    expect(JSON.stringify(outputs.TokensSecretName.Value)).toContain(`"Ref":"${secretIds.tokens}"`);
  });

  test('the stack is named after the stage and has no account or region', () => {
    expect(sandbox.stack.stackName).toBe('MerchantPaymentsPlugin-sandbox');
    expect(production.stack.stackName).toBe('MerchantPaymentsPlugin-production');
    expect(sandbox.stack.environment).toBe('aws://unknown-account/unknown-region');
  });

  test('bad context stops the app with a clear message', () => {
    expect(() =>
      definePaymentsPluginApp(new App({ context: stageContext({ stage: 'production' }) })),
    ).toThrow(
      /"processingBaseUrl" is required for stage "production": put .* in cdk.json, under context.stages.production/,
    );
  });
});

describe('webhooks', () => {
  const withHooks = synth({ webhookUrl: 'https://shop.test/webhooks' }).template;
  const mappings = Object.values(withHooks.findResources('AWS::Lambda::EventSourceMapping'));
  const queues = withHooks.findResources('AWS::SQS::Queue');
  const deadLetterQueueId = Object.keys(queues).find((id) => id.startsWith('JobsDeadLetterQueue'))!;
  const wakeQueueId = Object.keys(queues).find((id) => id.startsWith('WebhookTriggerWakeQueue'))!;
  const [dispatcherId, dispatcher] = Object.entries(withHooks.findResources('AWS::Lambda::Function')).find(
    ([, fn]) => fn.Properties.Environment?.Variables?.WEBHOOK_URL,
  )!;

  test('with a webhookUrl, the table stream wakes the dispatcher on record writes that leave events waiting, failures to the DLQ', () => {
    withHooks.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
    // The stream, and the wake queue (below).
    expect(mappings).toHaveLength(2);
    const mapping = mappings.find((m) => m.Properties.StartingPosition)!;
    expect(mapping.Properties.FilterCriteria.Filters.map((f: any) => JSON.parse(f.Pattern))).toEqual([
      ...['INVOICE#', 'REFUND#'].map((prefix) => ({
        dynamodb: { Keys: { pk: { S: [{ prefix }] } }, NewImage: { gsi3pk: { S: [{ exists: true }] } } },
      })),
      // Another store's records (STORES.md): not its deliveries, whose keys start the same.
      {
        dynamodb: {
          Keys: { pk: { S: [{ prefix: 'S#' }] }, sk: { S: ['INVOICE', 'REFUND'] } },
          NewImage: { gsi3pk: { S: [{ exists: true }] } },
        },
      },
    ]);
    expect(mapping.Properties.DestinationConfig.OnFailure.Destination).toEqual(arnOf(deadLetterQueueId));
    expect(dispatcher.Properties.Environment.Variables.WEBHOOK_URL).toBe('https://shop.test/webhooks');
    // Without one, no stream and no trigger: nothing is sent.
    expect(template.findResources('AWS::Lambda::EventSourceMapping')).toEqual({});
  });

  test('a retry due in seconds wakes the dispatcher through an encrypted queue it sends to, whose wakes expire', () => {
    expect(Object.keys(queues)).toHaveLength(2);
    expect(queues[wakeQueueId].Properties).toEqual({
      SqsManagedSseEnabled: true,
      // Six times the dispatcher's 120 s, as AWS advises for a queue feeding a function.
      VisibilityTimeout: 720,
      // No dead-letter queue: throttled wakes would reach it and raise false alarms; an hour on, the schedule has
      // run the dispatcher many times.
      MessageRetentionPeriod: 3600,
    });
    withHooks.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [ref(wakeQueueId)],
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ],
      },
    });
    const wake = mappings.find((m) => m.Properties.EventSourceArn['Fn::GetAtt']?.[0] === wakeQueueId)!;
    expect(wake.Properties).toEqual({
      EventSourceArn: arnOf(wakeQueueId),
      FunctionName: ref(dispatcherId),
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    expect(dispatcher.Properties.Environment.Variables.WEBHOOK_WAKE_QUEUE_URL).toEqual(ref(wakeQueueId));
    // It sends, and the queue's poller receives and deletes; no other function touches the queue.
    const onWakeQueue = (roleId: string) =>
      grantsOf(roleId, withHooks).filter((entry) => entry.endsWith(JSON.stringify(arnOf(wakeQueueId))));
    expect(onWakeQueue(dispatcher.Properties.Role['Fn::GetAtt'][0])).toEqual(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].map((action) => grant(action, arnOf(wakeQueueId))),
    );
    const others = Object.entries(withHooks.findResources('AWS::Lambda::Function')).filter(
      ([id]) => id !== dispatcherId,
    );
    for (const [, fn] of others) {
      const roleId = fn.Properties.Role['Fn::GetAtt']?.[0];
      if (roleId) expect(onWakeQueue(roleId)).toEqual([]);
    }
  });
});
