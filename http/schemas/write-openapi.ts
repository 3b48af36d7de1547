// `npm run openapi`: writes the OpenAPI document to openapi.json at the project root.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openApiDocument } from './openapi';

export const OPENAPI_FILE = path.join(__dirname, '..', '..', 'openapi.json');

export const documentText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

if (require.main === module) writeFileSync(OPENAPI_FILE, documentText());
