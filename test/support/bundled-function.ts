// The functions as deployed: the stack's own bundles, each run in a child process with the template's environment.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { definePaymentsPluginApp } from '../../lib/define-app';
import type { PluginFunction } from '../../lib/plugin-function';
import { routes, scheduledJobs, type FunctionName } from '../../lib/routes';
import { invokeWithTimeout, type Invocation } from '../../local/lambda-context';

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
  const app = new App({ outdir, context });
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

// Runs in the child: loads the bundle like Lambda's Node runtime, then serves invocations sent over IPC.
const RUNNER = `
const [bundle, exportName] = process.argv.slice(1);
const handler = require(bundle)[exportName];
process.on('message', async ({ id, event, timeoutMs }) => {
  const deadline = Date.now() + timeoutMs;
  const context = {
    awsRequestId: String(id),
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    process.send({ id, result: await handler(event, context) });
  } catch (error) {
    process.send({ id, error: String(error && error.stack) });
  }
});
process.send({ ready: true });
`;

/** Starts the bundle in its own Node process with exactly `env`, as a fresh Lambda container would. */
export async function startBundledFunction(
  fn: TemplateFunction,
  env: Record<string, string>,
): Promise<BundledFunction> {
  const child = spawn(process.execPath, ['-e', RUNNER, fn.bundle, fn.exportName], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error === undefined) waiting.resolve(message.result);
    else waiting.reject(new Error(`${fn.name} failed: ${message.error}`));
  });
  child.on('exit', (code) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`${fn.name} exited (${code})`));
    pending.clear();
  });
  await ready(child, fn.name, () => chunks.join(''));
  let nextId = 0;
  const send = (event: unknown, timeoutMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, event, timeoutMs });
    });
  return {
    invoke: (event) =>
      invokeWithTimeout(
        (given: unknown, context) => send(given, context.getRemainingTimeInMillis()),
        event,
        fn.name,
        fn.timeoutSeconds * 1000,
      ),
    output: () => chunks.join(''),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

function ready(child: ChildProcess, name: string, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) =>
      reject(new Error(`${name} exited (${code}) at init:\n${output()}`));
    child.once('exit', failed);
    child.once('message', () => {
      child.off('exit', failed);
      resolve();
    });
  });
}
