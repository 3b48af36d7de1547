import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { sdkTrimming } from './bundling';

/** The project root: bundling resolves entries and the lockfile from here. */
export const PROJECT_ROOT = path.join(__dirname, '..');

/**
 * Room for a processing call at its longest (connect plus response timeouts) and the writes around it, so a slow
 * call ends in the function, not in a kill; below the HTTP API's 30 s limit.
 */
const API_TIMEOUT = Duration.seconds(25);

export interface PluginFunctionProps {
  /** Absolute path of the TypeScript module that exports `handler`. */
  entry: string;
  description: string;
  environment?: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
}

/**
 * A Lambda function with the project's defaults: Node 22 on arm64, X-Ray, its own log group, and a role that holds
 * only what is granted to it (no AWS managed policy). The bundle is minified with source maps and holds every
 * dependency at the version in the lockfile, including the AWS SDK clients the module imports.
 */
export class PluginFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  readonly entry: string;

  constructor(scope: Construct, id: string, props: PluginFunctionProps) {
    super(scope, id);
    this.entry = props.entry;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout ?? API_TIMEOUT,
      memorySize: props.memorySize ?? 512,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      environment: {
        ...props.environment,
        NODE_OPTIONS: '--enable-source-maps',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      bundling: {
        ...sdkTrimming,
        format: OutputFormat.CJS,
        target: 'node22',
        minify: true,
        sourceMap: true,
        externalModules: [],
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments and PutTelemetryRecords do not support resource-level permissions.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'Node.js 22 is the runtime the project targets, bundles for and tests on; moving is a deliberate change.',
      },
    );
  }

  /** Grants the function's role exactly these actions on these resources. */
  allow(actions: string[], resources: string[]): void {
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
  }
}
