/**
 * Proxy selection (the `proxy.*` options): component settings over the global ones over the
 * environment (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`; the lowercase form wins).
 */
import { BlockList, isIP } from 'node:net';
import type { ProxyConfig } from '../config/options/proxy.js';

/** The proxies in effect for one component. */
export interface ProxySettings {
  readonly http: string | undefined;
  readonly https: string | undefined;
  readonly noProxy: NoProxy;
}

/** Decides whether a host bypasses the proxy. */
export interface NoProxy {
  matches(host: string): boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

const envVar = (env: Env, name: string): string | undefined => {
  const v = env[name.toLowerCase()] ?? env[name];
  return v === undefined || v === '' ? undefined : v;
};

/** Strips brackets of IPv6 literals and a trailing dot. */
function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/**
 * Compiles no_proxy entries: `*` (all), an IP address, a CIDR block, `example.com` (that host),
 * `.example.com` (the host and its subdomains), `*.example.com` (subdomains only). Ports are ignored.
 */
export function compileNoProxy(entries: readonly string[]): NoProxy {
  let all = false;
  const exact = new Set<string>();
  const suffixes: string[] = [];
  const blocks = new BlockList();
  let hasBlocks = false;
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') {
      all = true;
      continue;
    }
    const slash = entry.indexOf('/');
    if (slash > 0) {
      const addr = normalizeHost(entry.slice(0, slash));
      const prefix = Number(entry.slice(slash + 1));
      const family = isIP(addr);
      if (family === 0 || !Number.isInteger(prefix)) throw new Error(`proxy.no_proxy: invalid CIDR block "${raw}"`);
      blocks.addSubnet(addr, prefix, family === 6 ? 'ipv6' : 'ipv4');
      hasBlocks = true;
      continue;
    }
    const bare = normalizeHost(entry);
    if (isIP(bare)) {
      exact.add(bare);
      continue;
    }
    const host = entry.replace(/:\d+$/, '');
    if (host.startsWith('*.')) suffixes.push(host.slice(1));
    else if (host.startsWith('.')) {
      suffixes.push(host);
      exact.add(host.slice(1));
    } else exact.add(normalizeHost(host));
  }
  return {
    matches(host: string): boolean {
      if (all) return true;
      const h = normalizeHost(host);
      if (exact.has(h)) return true;
      const family = isIP(h);
      if (family !== 0) return hasBlocks && blocks.check(h, family === 6 ? 'ipv6' : 'ipv4');
      for (const s of suffixes) if (h.endsWith(s)) return true;
      return false;
    },
  };
}

/**
 * The effective proxy settings; undefined when no proxy applies at all (disabled, or nothing
 * configured). no_proxy lists of every level add up.
 */
export function resolveProxy(component: ProxyConfig | undefined, global: ProxyConfig | undefined, env: Env = process.env): ProxySettings | undefined {
  if (component?.enabled === false || global?.enabled === false) return undefined;
  const http = component?.http ?? global?.http ?? envVar(env, 'HTTP_PROXY');
  const https = component?.https ?? global?.https ?? envVar(env, 'HTTPS_PROXY');
  if (http === undefined && https === undefined) return undefined;
  const noProxy = [...(component?.no_proxy ?? []), ...(global?.no_proxy ?? []), ...(envVar(env, 'NO_PROXY')?.split(',') ?? [])];
  return { http, https, noProxy: compileNoProxy(noProxy) };
}

/** The proxy URL for a request URL, or undefined to connect directly. */
export function proxyFor(settings: ProxySettings | undefined, url: URL): string | undefined {
  if (!settings) return undefined;
  const proxy = url.protocol === 'https:' ? settings.https : url.protocol === 'http:' ? settings.http : undefined;
  if (proxy === undefined || settings.noProxy.matches(url.hostname)) return undefined;
  return proxy;
}
