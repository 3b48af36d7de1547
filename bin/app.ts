import { App } from 'aws-cdk-lib';
import { definePaymentsPluginApp } from '../lib/define-app';

definePaymentsPluginApp(new App());
