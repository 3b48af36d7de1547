import { execFileSync } from 'node:child_process';
import { AssetHashType, DockerImage, Duration, NestedStack, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  type IOrigin,
} from 'aws-cdk-lib/aws-cloudfront';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { webApps, WEB_APPS_DIR } from '../web/build';
import { webHeaders } from '../web/headers';
import { HOME_PATH } from '../web/paths';
import { PROJECT_ROOT } from './plugin-function';
import { responseHeadersPolicyProps } from './response-headers';
import { routes } from './routes';
import type { CustomDomain, HostedZone as ZoneSettings } from './settings';

export interface WebHostingProps {
  /** The HTTP API's host name: the console calls it through the distribution, at its own origin. */
  apiDomain: string;
  /** Of the deployment's logs. */
  logRetention: RetentionDays;
  /** The apps' own host name, with its certificate in us-east-1; unset, the distribution's *.cloudfront.net. */
  domain?: CustomDomain;
  /** Where the domain's alias records go; unset, the operator points the name at the distribution. */
  hostedZone?: ZoneSettings;
}

/** How long a browser keeps a file; a deploy invalidates CloudFront's copies at once. */
const BROWSER_CACHE = Duration.minutes(5);

/**
 * The browser apps of web/apps (the checkout widget, the demo store, the operator console) from a private bucket
 * behind CloudFront, with the headers web/headers.ts gives each app. A nested stack of its own, so that its
 * deployment function (CDK's, in Python) and CloudFront stay apart from the plugin's functions and their rules.
 */
export class WebHosting extends NestedStack {
  readonly distribution: Distribution;
  /** Where the apps are served: `https://` and the custom domain, or the distribution's own host name. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id, { description: 'Merchant Payments plugin: the widget, the demo store and the console' });
    const bucket = new Bucket(this, 'Assets', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Built from the repository at every deploy: nothing in it needs keeping.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds only the built web apps, which anyone may read through the distribution, and only ' +
        'CloudFront reads it; an access log of those reads would hold nothing to investigate.',
    });

    const site = S3BucketOrigin.withOriginAccessControl(bucket);
    const indexPages = new EdgeFunction(this, 'IndexPages', {
      comment: 'Answers /<app>/ with its index.html, and sends /<app> there',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(INDEX_PAGES),
    });
    const policies = new Map<string, ResponseHeadersPolicy>();
    const siteBehavior = (urlPath: string): BehaviorOptions => {
      const headers = webHeaders(urlPath);
      const key = JSON.stringify(headers);
      let policy = policies.get(key);
      if (!policy) {
        policy = new ResponseHeadersPolicy(this, `Headers${policies.size}`, {
          comment: `The headers of web/headers.ts for ${urlPath}`,
          ...responseHeadersPolicyProps(headers),
        });
        policies.set(key, policy);
      }
      return {
        origin: site,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: policy,
        functionAssociations: [{ function: indexPages, eventType: FunctionEventType.VIEWER_REQUEST }],
      };
    };

    const defaultBehavior = siteBehavior('/');
    const appBehaviors = Object.fromEntries(
      webApps()
        .map((app) => [`/${app}/*`, siteBehavior(`/${app}/`)] as const)
        // An app with the pages' headers needs no behaviour of its own.
        .filter(([, behavior]) => behavior.responseHeadersPolicy !== defaultBehavior.responseHeadersPolicy),
    );
    const { domain } = props;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Merchant Payments plugin: web apps',
      ...(domain && {
        domainNames: [domain.name],
        certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      }),
      defaultBehavior,
      additionalBehaviors: {
        ...appBehaviors,
        ...consoleApiBehaviors(new HttpOrigin(props.apiDomain)),
      },
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'Shops sell worldwide: the checkout widget must load wherever their customers are, so no country is blocked.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'No WAF: the files are static and public, and each API route has its own throttle at API Gateway, which ' +
        'the console paths reach through this distribution too.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR3',
      reason:
        'The files are public and static; every API call through the distribution is in the API access logs, ' +
        'which hold what an incident is investigated from.',
    });
    if (!domain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution has no custom domain, so it serves the default *.cloudfront.net certificate, whose ' +
          'minimum TLS version CloudFront fixes; the custom domain setting sets TLSv1.2_2021.',
      });
    }
    this.url = `https://${domain?.name ?? this.distribution.distributionDomainName}`;
    if (domain && props.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: props.hostedZone.id,
        zoneName: props.hostedZone.name,
      });
      const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
      new ARecord(this, 'Alias', { zone, recordName: `${domain.name}.`, target });
      new AaaaRecord(this, 'AliasIpv6', { zone, recordName: `${domain.name}.`, target });
    }

    this.deployAssets(bucket, props.logRetention);
  }

  /** Builds the apps at synth (web/write-assets.ts) and uploads them, then invalidates CloudFront's copies. */
  private deployAssets(bucket: Bucket, logRetention: RetentionDays): void {
    const logGroup = new LogGroup(this, 'DeploymentLogs', {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role, so that it holds no AWS managed policy: only the grants the deployment adds and its logs.
    const role = new Role(this, 'DeploymentRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    const assets = Source.asset(WEB_APPS_DIR, {
      // The output, not web/apps, decides the hash: web/build.ts and the dependencies shape it too.
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never pulled: the local build below always runs, or fails the synth.
        image: DockerImage.fromRegistry('scratch'),
        local: {
          tryBundle(outputDir) {
            execFileSync(process.execPath, ['--import', 'tsx', 'web/write-assets.ts', outputDir], {
              cwd: PROJECT_ROOT,
              stdio: 'inherit',
            });
            return true;
          },
        },
      },
    });
    new BucketDeployment(this, 'Deployment', {
      sources: [assets],
      destinationBucket: bucket,
      distribution: this.distribution,
      distributionPaths: webApps().map((app) => `/${app}/*`),
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(BROWSER_CACHE)],
      // On delete, the deployment empties the bucket, so that the bucket, and with it the stack, can be deleted.
      retainOnDelete: false,
      role,
      logGroup,
    });
    // CDK's grants: read its asset from the bootstrap bucket, write and prune the apps' objects, and invalidate the
    // distribution, for which CloudFront takes no narrower resource.
    for (const finding of [
      'Action::s3:GetObject*',
      'Action::s3:GetBucket*',
      'Action::s3:List*',
      'Action::s3:DeleteObject*',
      'Action::s3:Abort*',
      `Resource::<${this.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>/*`,
      'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      'Resource::*',
    ]) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          "CDK's bucket deployment reads its asset, writes and prunes the apps' objects by key, and invalidates the " +
          'distribution; these are its grants, on the asset bucket, this bucket and CloudFront only.',
      });
    }
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: "The runtime of CDK's own bucket deployment function; a CDK upgrade moves it.",
    });
  }
}

/**
 * The console calls the API at its own origin, as it does locally: its CSP allows no other, and the API needs no
 * CORS for it. Any route an admin or the platform token may call (a storefront route too) goes to the API,
 * uncached, with every header but Host (API Gateway answers to its own). A pattern another one's `/*` already
 * covers is left out (CloudFront's `*` spans `/`): a distribution holds at most 25 behaviours by default.
 */
function consoleApiBehaviors(api: IOrigin): Record<string, BehaviorOptions> {
  const patterns = routes
    // The claim page calls its own routes the same way.
    .filter(
      (route) =>
        route.access === 'admin' ||
        route.access === 'storefront' ||
        route.access === 'platform' ||
        route.access === 'claimant',
    )
    .map((route) => route.path.replace(/\{[^}]+\}/g, '*'));
  const wide = patterns.filter((pattern) => pattern.endsWith('/*')).map((pattern) => pattern.slice(0, -1));
  const bearerPaths = patterns.filter(
    (pattern) => !wide.some((prefix) => pattern !== `${prefix}*` && pattern.startsWith(prefix)),
  );
  const behavior: BehaviorOptions = {
    origin: api,
    viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
    allowedMethods: AllowedMethods.ALLOW_ALL,
    cachePolicy: CachePolicy.CACHING_DISABLED,
    originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
  };
  return Object.fromEntries([...new Set(bearerPaths)].map((pattern) => [pattern, behavior]));
}

/**
 * CloudFront Functions' JavaScript: `/<app>/` is its index.html, `/<app>` is redirected there, and `/` to the API
 * reference (web/paths.ts), as `npm start` does.
 */
const INDEX_PAGES = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/') {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '${HOME_PATH}' } } };
  }
  if (uri.endsWith('/')) {
    request.uri = uri + 'index.html';
    return request;
  }
  if (uri.lastIndexOf('.') < uri.lastIndexOf('/')) {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: uri + '/' } } };
  }
  return request;
}`;
