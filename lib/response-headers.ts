import { Duration } from 'aws-cdk-lib';
import {
  HeadersFrameOption,
  HeadersReferrerPolicy,
  type ResponseHeadersPolicyProps,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';

type HeaderParts = Pick<
  ResponseHeadersPolicyProps,
  'securityHeadersBehavior' | 'corsBehavior' | 'customHeadersBehavior'
>;

const HSTS = /^max-age=(\d+)((?:;\s*(?:includeSubDomains|preload))*)$/i;

/**
 * A response headers policy that sets exactly these headers (web/headers.ts). CloudFront refuses security and
 * CORS headers among the custom ones, so each goes to its own setting; a value no setting can carry stops the synth
 * rather than leave the header out.
 */
export function responseHeadersPolicyProps(headers: Readonly<Record<string, string>>): HeaderParts {
  const security: {
    -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K];
  } = {};
  const custom: Array<{ header: string; value: string; override: boolean }> = [];
  let corsBehavior: HeaderParts['corsBehavior'];
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'strict-transport-security': {
        const match = HSTS.exec(value) ?? unsupported(name, value);
        security.strictTransportSecurity = {
          accessControlMaxAge: Duration.seconds(Number(match[1])),
          includeSubdomains: /includeSubDomains/i.test(match[2]),
          preload: /preload/i.test(match[2]),
          override: true,
        };
        break;
      }
      case 'x-content-type-options':
        if (value !== 'nosniff') unsupported(name, value);
        security.contentTypeOptions = { override: true };
        break;
      case 'referrer-policy':
        security.referrerPolicy = {
          referrerPolicy: oneOf(HeadersReferrerPolicy, name, value),
          override: true,
        };
        break;
      case 'x-frame-options':
        security.frameOptions = { frameOption: oneOf(HeadersFrameOption, name, value), override: true };
        break;
      case 'access-control-allow-origin':
        // For files read with GET by other origins' pages (a module script, a stylesheet), never with credentials.
        corsBehavior = {
          accessControlAllowOrigins: [value],
          accessControlAllowMethods: ['GET', 'HEAD'],
          // Such reads send no header that needs allowing; the setting cannot be empty.
          accessControlAllowHeaders: ['*'],
          accessControlAllowCredentials: false,
          originOverride: true,
        };
        break;
      default:
        if (name.toLowerCase().startsWith('access-control-')) unsupported(name, value);
        custom.push({ header: name, value, override: true });
    }
  }
  return {
    securityHeadersBehavior: security,
    ...(corsBehavior && { corsBehavior }),
    ...(custom.length > 0 && { customHeadersBehavior: { customHeaders: custom } }),
  };
}

function oneOf<T extends string>(choices: Record<string, T>, name: string, value: string): T {
  const choice = Object.values(choices).find((option) => option.toLowerCase() === value.toLowerCase());
  return choice ?? unsupported(name, value);
}

function unsupported(name: string, value: string): never {
  throw new Error(`A CloudFront response headers policy cannot set ${name}: ${value}`);
}
