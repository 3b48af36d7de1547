// The functions as deployed: the stack's own bundles, each run in a child process with the template's environment.
import * as path from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { definePaymentsPluginApp } from '../../lib/define-app';
import type { PluginFunction } from '../../lib/plugin-function';
import { routes, scheduledJobs, type FunctionName } from '../../lib/routes';
import { invokeWithTimeout, type Invocation } from '../../local/lambda-context';
import { startLambdaProcess } from '../../local/lambda-process';
import { stageContext } from './stage-context';

export interface TemplateFunction {
  name: FunctionName;
  /** The bundle the stack deploys, in the cloud assembly. */
  bundle: string;
  /** The export Lambda calls, from the template's `Handler` (`index.handler`). */
  exportName: string;
  /** The template's variables: strings, or CloudFormation references such as `{ Ref: ... }`. */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
}

export interface TemplateResource {
  Type: string;
  Properties: {
    Code: { S3Key: string };
    Handler: string;
    Timeout: number;
    Environment?: { Variables?: Record<string, unknown> };
  };
}

export interface SynthesizedApp {
  /** The stack template's resources (typed for the Lambda functions among them). */
  resources: Record<string, TemplateResource>;
  /** The bundle a function resource deploys. */
  bundleOf(resource: TemplateResource): string;
  /** The plugin's functions, routes and jobs, as the template describes them. */
  functions: TemplateFunction[];
}

/** Synthesizes the app as `cdk synth` does, bundling included (about half a second per function), into `outdir`. */
export function synthesizeApp(outdir: string, context: Record<string, unknown> = {}): SynthesizedApp {
  const app = new App({ outdir, context: { ...stageContext(), ...context } });
  const stack = definePaymentsPluginApp(app);
  const resources = app.synth().getStackByName(stack.stackName).template.Resources as Record<
    string,
    TemplateResource
  >;
  const bundleOf = (resource: TemplateResource) => {
    // The asset's key is its hash, and the cloud assembly keeps it in asset.<hash>.
    const assetDir = path.join(outdir, `asset.${resource.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
    return path.join(assetDir, `${resource.Properties.Handler.split('.')[0]}.js`);
  };
  const names: FunctionName[] = [...routes.map((route) => route.name), ...scheduledJobs];
  const functions = names.map((name) => {
    const construct = (stack.node.findChild(name) as PluginFunction).function.node.defaultChild as CfnElement;
    const resource = resources[stack.getLogicalId(construct)];
    return {
      name,
      bundle: bundleOf(resource),
      exportName: resource.Properties.Handler.split('.')[1],
      environment: resource.Properties.Environment?.Variables ?? {},
      timeoutSeconds: resource.Properties.Timeout,
    };
  });
  return { resources, bundleOf, functions };
}

/**
 * The template's variables with `local` laid over them: the endpoints of local stand-ins, the names of local
 * resources for the template's references, and what Lambda itself provides (region, credentials). A variable
 * still holding a reference is an error, so that a new one cannot go unnoticed.
 */
export function environmentFor(fn: TemplateFunction, local: Record<string, string>): Record<string, string> {
  const merged: Record<string, unknown> = { ...fn.environment, ...local };
  const unresolved = Object.keys(merged).filter((name) => typeof merged[name] !== 'string');
  if (unresolved.length > 0) {
    throw new Error(`${fn.name}: give local values for ${unresolved.join(', ')}`);
  }
  return merged as Record<string, string>;
}

export interface BundledFunction {
  /** Invokes the handler as Lambda does, with a context whose deadline is the template's `Timeout` away. */
  invoke(event: unknown): Invocation<unknown>;
  /** What the function wrote to stdout and stderr so far. */
  output(): string;
  close(): Promise<void>;
}

/** Starts the bundle in its own Node process with exactly `env`, as a fresh Lambda container would. */
export async function startBundledFunction(
  fn: TemplateFunction,
  env: Record<string, string>,
): Promise<BundledFunction> {
  const lambda = await startLambdaProcess(fn.bundle, env, fn.exportName);
  return {
    invoke: (event) =>
      invokeWithTimeout(
        async (given: unknown, context) =>
          (await lambda.invoke(given, fn.name, context.getRemainingTimeInMillis())).result,
        event,
        fn.name,
        fn.timeoutSeconds * 1000,
      ),
    output: lambda.output,
    close: lambda.close,
  };
}
