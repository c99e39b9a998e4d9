/**
 * The management API's address as `weir tap` and `weir top` take it. Kept apart from the client so
 * the command line parses it without loading the WebSocket client.
 */

/**
 * The GraphQL endpoint of an API address as a user writes it: `host:port` (as in `api.address`),
 * `http://host:port` or the full `http://host:port/graphql`. A URL with no path gets `/graphql`;
 * any other path is kept, for an API behind a proxy. Throws on text that is no URL.
 */
export function graphqlUrl(address: string): string {
  const text = address.trim();
  let u: URL;
  try {
    // a bare `host:port` would parse as a URL whose scheme is the host
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new TypeError(`not an API address: "${address}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`the API address must be http or https; got "${address}"`);
  if (u.pathname === '' || u.pathname === '/') u.pathname = '/graphql';
  return u.toString();
}
