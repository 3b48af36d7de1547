import { explorerTemplates } from '../domain/explorers';

/** The stage's explorer links (`EXPLORER_URLS`, a JSON object) over the defaults; a bad one stops the function loading. */
export const explorers = explorerTemplates(process.env.EXPLORER_URLS);
