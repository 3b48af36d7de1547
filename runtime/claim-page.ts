/**
 * The claim page's URL: the web distribution's in AWS (the stack sets CLAIM_PAGE_URL), else beside the API, as the
 * local stack serves it.
 */
export function claimPageUrl(apiBase: string): string {
  return process.env.CLAIM_PAGE_URL ?? `${apiBase}/claim/`;
}
