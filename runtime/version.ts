import { version } from '../package.json';

/** This release, as package.json names it (semver): the stack outputs it and `GET /health` answers it. */
export const VERSION: string = version;
