// The demo store's backend as its pages reach it (local/demo-store.ts, served by `npm start`). Where there is none,
// as in the static copy CloudFront serves in AWS, the answer is not the store's JSON (S3 says 403 in XML): the
// customer reads why in plain words instead of a parse error.
export const NO_BACKEND =
  'This copy of the demo store has no store server, so it cannot take orders. Run the demo locally with npm start to try a payment.';

export async function storeRequest<T>(path: string, method = 'GET', body?: object): Promise<T> {
  let answer: Response;
  try {
    answer = await fetch(path, {
      method,
      cache: 'no-store',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Error('The store could not be reached. Check the connection and try again.');
  }
  let data: T & { error?: { message?: string } };
  try {
    data = (await answer.json()) as typeof data;
  } catch {
    throw new Error(NO_BACKEND);
  }
  if (!answer.ok) throw new Error(data.error?.message ?? `The store answered ${answer.status}.`);
  return data;
}
