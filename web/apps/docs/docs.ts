// The API reference at /docs/: openapi.json rendered by Scalar, bundled here with the document, so that nothing
// comes from a CDN and nothing is fetched but this page's own files.
import { createApiReference } from '@scalar/api-reference';
import '@scalar/api-reference/style.css';
import './docs.css';
import openapi from '../../../openapi.json';

createApiReference('#reference', {
  content: openapi,
  // Nothing that calls another origin: no fonts, telemetry, AI agent, MCP or request client.
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  hideDarkModeToggle: true,
  operationTitleSource: 'summary',
});

// Scalar's copy buttons show only an icon; each is named here for screen readers.
new MutationObserver(() => {
  for (const button of document.querySelectorAll('button.scalar-code-copy:not([aria-label])'))
    button.setAttribute('aria-label', 'Copy the code');
}).observe(document.body, { childList: true, subtree: true });
