import { responseHeadersPolicyProps } from '../../lib/response-headers';

test('each header goes to the setting made for it, the rest to custom headers', () => {
  const props = responseHeadersPolicyProps({
    'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'cross-origin',
  });
  expect(props.securityHeadersBehavior).toMatchObject({
    strictTransportSecurity: { includeSubdomains: true, preload: true, override: true },
    frameOptions: { frameOption: 'DENY', override: true },
    referrerPolicy: { referrerPolicy: 'no-referrer', override: true },
  });
  expect(props.securityHeadersBehavior?.strictTransportSecurity?.accessControlMaxAge.toSeconds()).toBe(
    31536000,
  );
  expect(props.customHeadersBehavior?.customHeaders).toEqual([
    { header: 'cross-origin-resource-policy', value: 'cross-origin', override: true },
  ]);
  expect(props.corsBehavior).toBeUndefined();
});

test.each([
  ['strict-transport-security', 'max-age=forever'],
  ['x-content-type-options', 'sniff'],
  ['referrer-policy', 'everywhere'],
  ['access-control-allow-methods', 'GET'],
])('a value no setting can carry stops the synth: %s: %s', (name, value) => {
  expect(() => responseHeadersPolicyProps({ [name]: value })).toThrow(
    `A CloudFront response headers policy cannot set ${name}: ${value}`,
  );
});
