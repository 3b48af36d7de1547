import { noInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { openapiRoute } from '../lib/routes';
import document from '../openapi.json';

/** Serves an OpenAPI document; `npm start` serves the one the generator makes as it starts. */
export function serveDocument(served: object) {
  return apiRoute({ route: openapiRoute, input: noInput }, async () => ({
    status: 200,
    body: served,
    headers: { 'cache-control': 'public, max-age=300' },
  }));
}

/** GET /openapi.json: the document `npm run openapi` wrote, which a test keeps equal to what it generates. */
export const handler = serveDocument(document);
