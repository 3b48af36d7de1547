// Stands in for the SDK's default credential chain in the bundles. Lambda puts the function role's credentials in
// the environment, so the chain's first link is the only one that ever runs there; the others (ini files, SSO,
// STS web identity, login, process, container and instance metadata) bring about 100 KB of code and their own
// nested SDK clients to every bundle.
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
