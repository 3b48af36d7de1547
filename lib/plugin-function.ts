import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { lambdaBuildOptions, sdkTrimming } from './bundling';
import { API_FUNCTION_TIMEOUT_SECONDS } from './routes';

/** The project root: bundling resolves entries and the lockfile from here. */
export const PROJECT_ROOT = path.join(__dirname, '..');

const API_TIMEOUT = Duration.seconds(API_FUNCTION_TIMEOUT_SECONDS);

export interface PluginFunctionProps {
  /** Absolute path of the TypeScript module that exports `handler`. */
  entry: string;
  description: string;
  environment?: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
  /** Set aside for this function alone, and its ceiling; unset: the account's shared pool. */
  reservedConcurrency?: number;
  /** Per stage (settings); every function says it, so none keeps logs for a default nobody chose. */
  logRetention: RetentionDays;
}

/**
 * A Lambda function with the project's defaults: Node 22 on arm64, its own log group, a role with only what is
 * granted to it, and a minified bundle that holds every dependency at the lockfile's version, the AWS SDK included.
 * X-Ray is off (docs/internals.md, "Weighed and left").
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
      retention: props.logRetention,
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
      reservedConcurrentExecutions: props.reservedConcurrency,
      tracing: Tracing.DISABLED,
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
        // As the tests and the bench bundle (lib/bundling.ts), so that what they run is what deploys.
        target: lambdaBuildOptions.target as string,
        minify: lambdaBuildOptions.minify,
        keepNames: lambdaBuildOptions.keepNames,
        sourceMap: lambdaBuildOptions.sourcemap === true,
        externalModules: [],
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the project targets, bundles for and tests on; moving is a deliberate change.',
    });
  }

  /** Grants the function's role exactly these actions on these resources, under these conditions if any. */
  allow(actions: string[], resources: string[], conditions?: Record<string, unknown>): void {
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources, conditions }));
  }
}
