/** `proxy.*` of a component that makes outbound HTTP requests; it merges over the global `proxy`. */
import * as v from 'valibot';

/** `proxy.no_proxy`: a list of hosts, or one string of them separated by commas (as `NO_PROXY`). */
const noProxySchema = v.pipe(
  v.union(
    [v.array(v.string()), v.pipe(v.string(), v.transform((s) => s.split(',').map((h) => h.trim()).filter((h) => h !== '')))],
    'must be a list of hosts or a comma-separated string',
  ),
  v.description('Hosts reached directly: "*", a host, ".example.com" (with subdomains), "*.example.com" (subdomains only), an IP address or a CIDR block.'),
);

/** `proxy.*` (component level; merges over the global one). */
export const proxySchema = v.optional(
  v.strictObject({
    enabled: v.optional(v.pipe(v.boolean(), v.description('Use a proxy; false connects directly whatever the global and environment settings say.')), true),
    http: v.optional(v.pipe(v.string(), v.url('must be a URL'), v.description('Proxy for http:// requests.'))),
    https: v.optional(v.pipe(v.string(), v.url('must be a URL'), v.description('Proxy for https:// requests.'))),
    no_proxy: v.optional(noProxySchema, []),
  }),
);
/** A validated `proxy.*`. */
export type ProxyConfig = NonNullable<v.InferOutput<typeof proxySchema>>;
