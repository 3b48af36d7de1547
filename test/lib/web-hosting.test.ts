import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { definePaymentsPluginApp } from '../../lib/define-app';
import { routes } from '../../lib/routes';
import { WebHosting } from '../../lib/web-hosting';
import { buildWebAssets, webApps } from '../../web/build';
import { stageContext } from '../support/stage-context';
import { CONTENT_SECURITY_POLICY, webHeaders } from '../../web/headers';

// CloudFront's managed policies, by their fixed ids.
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

type Resource = { Type: string; Properties: Record<string, any> };

function synth() {
  // Skips bundling: these tests read the template.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...stageContext() } });
  const stack = definePaymentsPluginApp(app);
  return { stack, template: Template.fromStack(stack.node.findChild('Web') as WebHosting) };
}

const { stack, template } = synth();
const resources = template.toJSON().Resources as Record<string, Resource>;
const onlyOf = (type: string) => {
  const found = Object.entries(resources).filter(([, r]) => r.Type === type);
  expect(found).toHaveLength(1);
  return found[0];
};
const [bucketId, bucket] = onlyOf('AWS::S3::Bucket');
const [distributionId, distribution] = onlyOf('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig;
const behaviors: Array<Record<string, any>> = [
  { PathPattern: '*', ...config.DefaultCacheBehavior },
  ...config.CacheBehaviors,
];
const originOf = (behavior: Record<string, any>) =>
  config.Origins.find((origin: { Id: string }) => origin.Id === behavior.TargetOriginId);

/** The behaviour CloudFront picks for a path: the first whose pattern matches, the default last. */
function behaviorFor(urlPath: string): Record<string, any> {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(urlPath);
  return config.CacheBehaviors.find((b: { PathPattern: string }) => matches(b.PathPattern)) ?? behaviors[0];
}

/** The headers a response headers policy sets, written back as header lines. */
function headersSetBy(behavior: Record<string, any>): Record<string, string> {
  const policy = resources[behavior.ResponseHeadersPolicyId.Ref].Properties.ResponseHeadersPolicyConfig;
  const security = policy.SecurityHeadersConfig ?? {};
  const headers: Record<string, string> = {};
  if (security.ContentSecurityPolicy)
    headers['content-security-policy'] = security.ContentSecurityPolicy.ContentSecurityPolicy;
  const hsts = security.StrictTransportSecurity;
  if (hsts) {
    headers['strict-transport-security'] = [
      `max-age=${hsts.AccessControlMaxAgeSec}`,
      ...(hsts.IncludeSubdomains ? ['includeSubDomains'] : []),
      ...(hsts.Preload ? ['preload'] : []),
    ].join('; ');
  }
  if (security.ContentTypeOptions) headers['x-content-type-options'] = 'nosniff';
  if (security.ReferrerPolicy) headers['referrer-policy'] = security.ReferrerPolicy.ReferrerPolicy;
  if (security.FrameOptions) headers['x-frame-options'] = security.FrameOptions.FrameOption;
  const cors = policy.CorsConfig;
  if (cors) {
    expect(cors.AccessControlAllowCredentials).toBe(false);
    expect(cors.AccessControlAllowMethods.Items).toEqual(['GET', 'HEAD']);
    headers['access-control-allow-origin'] = cors.AccessControlAllowOrigins.Items.join(', ');
  }
  for (const { Header, Value } of policy.CustomHeadersConfig?.Items ?? []) headers[Header] = Value;
  // Each setting replaces what the origin might send.
  const overrides = [
    ...Object.values<{ Override: boolean }>(security),
    ...(policy.CustomHeadersConfig?.Items ?? []),
  ].map((setting) => setting.Override);
  expect(overrides.every(Boolean)).toBe(true);
  return headers;
}

describe('bucket', () => {
  test('private, encrypted, TLS only, no website hosting; only this distribution may read it', () => {
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
    const [, policy] = onlyOf('AWS::S3::BucketPolicy');
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const allowed = statements.filter((s: { Effect: string }) => s.Effect === 'Allow');
    expect(allowed).toEqual([
      expect.objectContaining({
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Condition: {
          StringEquals: { 'AWS:SourceArn': expect.objectContaining({ 'Fn::Join': expect.anything() }) },
        },
      }),
    ]);
    expect(JSON.stringify(allowed[0].Condition)).toContain(distributionId);
  });

  test('CloudFront reads it with origin access control, signing every request; no access identity', () => {
    const [oacId, oac] = onlyOf('AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(Object.values(resources).map((r) => r.Type)).not.toContain(
      'AWS::CloudFront::CloudFrontOriginAccessIdentity',
    );
    const site = originOf(behaviors[0]);
    expect(site.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(site.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(site.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
  });
});

describe('distribution', () => {
  test("each app's files get exactly the headers web/headers.ts gives them, over HTTPS only", () => {
    for (const app of webApps()) {
      for (const file of ['', 'index.html', `${app}.js`]) {
        const urlPath = `/${app}/${file}`;
        const behavior = behaviorFor(urlPath);
        expect(originOf(behavior)).toBe(originOf(behaviors[0]));
        expect(behavior.ViewerProtocolPolicy).toBe('redirect-to-https');
        expect(headersSetBy(behavior)).toEqual(webHeaders(urlPath));
      }
    }
  });

  test("the pages' CSP is web/headers.ts's: the console cannot be framed; HSTS for two years", () => {
    const console = headersSetBy(behaviorFor('/console/'));
    expect(console['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(console['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(console['content-security-policy']).toContain("script-src 'self'");
    expect(console['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  });

  test("the widget's module and stylesheet may be loaded by any shop's page", () => {
    for (const file of ['widget.js', 'widget.css']) {
      expect(headersSetBy(behaviorFor(`/widget/${file}`))).toMatchObject({
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
      });
    }
    expect(headersSetBy(behaviorFor('/console/console.js'))['access-control-allow-origin']).toBeUndefined();
  });

  test('every route an admin or the platform token may call reaches the API through it, uncached, with all but Host', () => {
    const apiBehavior = behaviorFor('/invoices');
    const api = originOf(apiBehavior);
    expect(api.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    const bearerRoutes = routes.filter(
      (r) => r.access === 'admin' || r.access === 'storefront' || r.access === 'platform',
    );
    expect(bearerRoutes.map((r) => r.name)).toEqual(
      expect.arrayContaining(['list-invoices', 'get-invoice', 'list-stores', 'update-store']),
    );
    expect(config.CacheBehaviors.length).toBeLessThanOrEqual(24);
    for (const route of bearerRoutes) {
      const behavior = behaviorFor(route.path.replace(/\{[^}]+\}/g, 'order-1'));
      expect(originOf(behavior)).toBe(api);
      expect(behavior).toMatchObject({
        ViewerProtocolPolicy: 'https-only',
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      });
      expect(behavior.AllowedMethods).toContain(route.method);
    }
    // The customer route is called from shops' pages at the API's own URL, and the service calls its own.
    for (const route of routes.filter((r) => r.access === 'customer' || r.access === 'service')) {
      expect(originOf(behaviorFor(route.path))).toBe(originOf(behaviors[0]));
    }
  });

  test('the API origin is the HTTP API, passed in from the plugin stack', () => {
    // https://<id>.execute-api.<region>.<suffix>: its host name.
    const { DomainName } = originOf(behaviorFor('/invoices'));
    const parameter = DomainName['Fn::Select'][1]['Fn::Split'][1].Ref as string;
    expect(DomainName).toEqual({ 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: parameter }] }] });
    const nested = Object.values(
      Template.fromStack(stack).toJSON().Resources as Record<string, Resource>,
    ).find((r) => r.Type === 'AWS::CloudFormation::Stack')!;
    const [apiId] = Object.keys(Template.fromStack(stack).findResources('AWS::ApiGatewayV2::Api'));
    expect(nested.Properties.Parameters[parameter]).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
  });

  test('the viewer-request function answers /<app>/ with its index.html and sends /<app> there', () => {
    const [, fn] = onlyOf('AWS::CloudFront::Function');
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    const handler = new Function(`${fn.Properties.FunctionCode}; return handler;`)() as (
      event: unknown,
    ) => any;
    const viewerRequest = (uri: string) => handler({ request: { uri, headers: {} } });
    expect(viewerRequest('/console/').uri).toBe('/console/index.html');
    expect(viewerRequest('/widget/widget.js').uri).toBe('/widget/widget.js');
    expect(viewerRequest('/demo')).toEqual({
      statusCode: 301,
      statusDescription: 'Moved Permanently',
      headers: { location: { value: '/demo/' } },
    });
    for (const behavior of behaviors.filter((b) => originOf(b) === originOf(behaviors[0]))) {
      expect(behavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: expect.anything() },
      ]);
    }
  });
});

describe('deployment', () => {
  test('uploads the apps to the bucket and then invalidates their paths', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: bucketId },
      DistributionId: { Ref: distributionId },
      DistributionPaths: webApps().map((app) => `/${app}/*`),
      SystemMetadata: { 'cache-control': 'public, max-age=300' },
      Prune: true,
    });
  });

  test('a delete of the stack empties the bucket first, so that the bucket and the stack can go', () => {
    expect(bucket).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    // The deployment, which depends on the bucket and so is deleted before it, removes the objects it put.
    template.hasResourceProperties('Custom::CDKBucketDeployment', { RetainOnDelete: false });
  });

  test('its function holds no AWS managed policy and logs where the stage says', () => {
    const roles = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Role');
    for (const role of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: { Ref: Match.stringLikeRegexp('^DeploymentLogs') } },
    });
  });

  test('the synth builds the apps into the uploaded asset, file for file as npm start serves them', async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'web-hosting-'));
    try {
      // On a stack of its own, so that the synth bundles this asset and no function.
      const app = new App({ outdir });
      const hosting = new WebHosting(new Stack(app, 'Host'), 'Web', {
        apiDomain: 'api.example',
        logRetention: RetentionDays.ONE_DAY,
      });
      app.synth();
      const deployment = Object.values(
        Template.fromStack(hosting).toJSON().Resources as Record<string, Resource>,
      ).find((r) => r.Type === 'Custom::CDKBucketDeployment')!;
      const [zip] = deployment.Properties.SourceObjectKeys as string[];
      const dir = path.join(outdir, `asset.${zip.replace(/\.zip$/, '')}`);
      const expected = new Map([...(await buildWebAssets())].filter(([urlPath]) => !urlPath.endsWith('/')));
      const written = readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => `/${path.relative(dir, path.join(entry.parentPath, entry.name))}`);
      expect(written.sort()).toEqual([...expected.keys()].sort());
      for (const [urlPath, asset] of expected) {
        expect(readFileSync(path.join(dir, urlPath)).equals(asset.body)).toBe(true);
      }
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 60_000);
});
