import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { routes, THROTTLE_BY_ACCESS, type RouteFunctionName, type ThrottleClass } from './routes';
import type { CustomDomain } from './settings';

/** Requests per second and bursts for each throttle class of lib/routes.ts. */
export const THROTTLES: Record<ThrottleClass, Required<ThrottleSettings>> = {
  busy: { rateLimit: 100, burstLimit: 200 },
  admin: { rateLimit: 10, burstLimit: 20 },
};

export interface PluginApiProps {
  handlers: Record<RouteFunctionName, IFunction>;
  /** Of the access logs. */
  logRetention: RetentionDays;
  /** The API's own host name; the execute-api one keeps working, for the web distribution. */
  domain?: CustomDomain;
}

/** The HTTP API: one route per entry of the route table, each to its own function, throttled per route. */
export class PluginApi extends Construct {
  readonly api: HttpApi;
  readonly domainName?: DomainName;
  private readonly stage: HttpStage;
  private readonly hostName?: string;

  constructor(scope: Construct, id: string, props: PluginApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'HttpApi', {
      description: 'Merchant Payments plugin',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    if (props.domain) {
      this.hostName = props.domain.name;
      this.domainName = new DomainName(this, 'Domain', {
        domainName: props.domain.name,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
    }
    this.stage = this.api.addStage('DefaultStage', {
      ...(this.domainName && { domainMapping: { domainName: this.domainName } }),
      stageName: '$default',
      autoDeploy: true,
      // Every route has its own class below; the stage default only meets paths no route serves.
      throttle: THROTTLES.admin,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: accessLogFormat() },
    });

    // CloudFormation property names: this map goes into the template as it is.
    const routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const route of routes) {
      // A customer route is read from shops' pages: its function answers the CORS preflight too (http/route.ts),
      // so that only this route is open to other origins, not the whole API.
      const methods = [route.method, ...(route.access === 'customer' ? (['OPTIONS'] as const) : [])];
      const httpRoutes = this.api.addRoutes({
        path: route.path,
        methods: methods.map((method) => HttpMethod[method]),
        integration: new HttpLambdaIntegration(`${route.name}-integration`, props.handlers[route.name]),
      });
      const { rateLimit, burstLimit } = THROTTLES[THROTTLE_BY_ACCESS[route.access]];
      for (const [i, method] of methods.entries()) {
        // Route settings name routes by key, so the stage must wait for them.
        this.stage.node.addDependency(httpRoutes[i]);
        routeSettings[`${method} ${route.path}`] = {
          ThrottlingRateLimit: rateLimit,
          ThrottlingBurstLimit: burstLimit,
        };
      }
    }
    (this.stage.node.defaultChild as CfnStage).addPropertyOverride('RouteSettings', routeSettings);

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Each function checks a bearer token (storefront or admin) against the tokens secret, and /callbacks ' +
        'checks the service signature; an authorizer would need the same secret and add a hop per call.',
    });
  }

  /** The URL callers use, ending in `/`: on the custom domain when there is one. */
  get url(): string {
    return this.hostName ? `https://${this.hostName}/` : this.stage.url;
  }
}

/** JSON lines with what an operator needs to follow a request; never headers, so never a bearer token. */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: '$context.requestId',
      requestTime: '$context.requestTime',
      sourceIp: '$context.identity.sourceIp',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationError: '$context.integrationErrorMessage',
      responseLength: '$context.responseLength',
    }),
  );
}
