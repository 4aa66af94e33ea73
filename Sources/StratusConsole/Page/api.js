// The admin API under /console/api, with the session cookie the console URL set.

/** GET or POST `path` under /console/api; resolves to the parsed JSON body, rejects with its message. */
export async function api(path, body) {
  const response = await fetch(`/console/api/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const json = await response.json();
  if (!response.ok) {
    const message = json.errors?.map((e) => e.message).join('\n') ?? `${response.status}`;
    throw new Error(message);
  }
  return json;
}

/**
 * Runs a GraphQL request through the API as `identity`, with further request `headers` (an
 * object of strings) when given: resolves to {status, response}.
 */
export function graphql(query, variables, identity, headers) {
  return api('graphql', headers ? { query, variables, identity, headers } : { query, variables, identity });
}
