/**
 * Outgoing TLS settings (the sinks' `tls.*` options) as Node `tls.connect` options. Files are read
 * once at build time; every value may also be inline PEM.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type ConnectionOptions, type SecureContextOptions, type TlsOptions, checkServerIdentity, createSecureContext, rootCertificates } from 'node:tls';
import type { TlsConfig } from '../config/options/tls.js';

const isPem = (s: string) => s.includes('-----BEGIN ');

/** Inline PEM text, or the bytes of the named file. */
function load(value: string): Buffer {
  return isPem(value) ? Buffer.from(value) : readFileSync(value);
}

const textOf = (b: Buffer) => b.toString('latin1');

/** One or more CA certificates as PEM; DER is converted. */
function certificatesPem(value: string, what: string): string {
  const bytes = load(value);
  if (isPem(textOf(bytes))) return textOf(bytes);
  try {
    return new X509Certificate(bytes).toString();
  } catch (err) {
    throw new Error(`${what}: neither PEM nor DER X.509 (${(err as Error).message})`);
  }
}

/** PKCS#12 has no PEM armour and does not parse as a single DER certificate. */
function isPkcs12(path: string, bytes: Buffer): boolean {
  if (/\.(p12|pfx)$/i.test(path)) return true;
  if (isPem(textOf(bytes))) return false;
  try {
    new X509Certificate(bytes);
    return false;
  } catch {
    return true;
  }
}

/** Sets `cert`/`key` (or `pfx`) from `crt_file`, `key_file` and `key_pass`; nothing without `crt_file`. */
function addIdentity(tls: Pick<TlsConfig, 'crt_file' | 'key_file' | 'key_pass'>, opts: SecureContextOptions): void {
  if (!tls.crt_file) return;
  const crt = load(tls.crt_file);
  if (isPkcs12(tls.crt_file, crt)) {
    opts.pfx = crt;
    if (tls.key_pass !== undefined) opts.passphrase = tls.key_pass;
  } else {
    if (!tls.key_file) throw new Error('tls.crt_file: key_file is required unless the identity is PKCS#12');
    opts.cert = certificatesPem(tls.crt_file, 'tls.crt_file');
    const keyBytes = load(tls.key_file);
    const pem = isPem(textOf(keyBytes));
    try {
      const key = createPrivateKey(
        pem
          ? { key: keyBytes, format: 'pem', ...(tls.key_pass !== undefined ? { passphrase: tls.key_pass } : {}) }
          : { key: keyBytes, format: 'der', type: 'pkcs8', ...(tls.key_pass !== undefined ? { passphrase: tls.key_pass } : {}) },
      );
      opts.key = key.export({ format: 'pem', type: 'pkcs8' }) as string;
    } catch (err) {
      throw new Error(`tls.key_file: cannot read the private key (${(err as Error).message})`);
    }
  }
}

/** Node connect options for an outgoing connection; undefined config = Node's defaults. */
export function tlsConnectOptions(tls: TlsConfig | undefined): ConnectionOptions {
  const opts: ConnectionOptions = {};
  if (!tls) return opts;
  if (tls.ca_file) opts.ca = [...rootCertificates, certificatesPem(tls.ca_file, 'tls.ca_file')]; // additional, not instead
  addIdentity(tls, opts);
  if (tls.verify_certificate === false) opts.rejectUnauthorized = false;
  if (tls.verify_hostname === false) opts.checkServerIdentity = () => undefined;
  else opts.checkServerIdentity = checkServerIdentity;
  if (tls.alpn_protocols?.length) opts.ALPNProtocols = [...tls.alpn_protocols];
  if (tls.server_name) opts.servername = tls.server_name;
  try {
    // built once: a wrong key_pass or a mismatched key fails here, and connections skip
    // re-parsing the whole root store each time
    opts.secureContext = createSecureContext(opts);
  } catch (err) {
    throw new Error(`tls: ${(err as Error).message}`);
  }
  return opts;
}

/** The `tls.*` options a listener reads (TLS of incoming connections). */
export type ListenTlsConfig = Pick<TlsConfig, 'alpn_protocols' | 'ca_file' | 'crt_file' | 'key_file' | 'key_pass' | 'verify_certificate'>;

/**
 * Node server options for incoming TLS: the identity is required; `verify_certificate` (default
 * false for listeners) requires a client certificate valid against `ca_file` (instead of the
 * system roots when set). Throws on unreadable files, like {@link tlsConnectOptions}.
 */
export function tlsListenOptions(tls: ListenTlsConfig): TlsOptions {
  const opts: TlsOptions = {};
  addIdentity(tls, opts);
  if (opts.cert === undefined && opts.pfx === undefined) throw new Error('tls.crt_file: a listener with TLS enabled needs an identity certificate');
  if (tls.ca_file) opts.ca = certificatesPem(tls.ca_file, 'tls.ca_file');
  const verify = tls.verify_certificate === true;
  opts.requestCert = verify;
  opts.rejectUnauthorized = verify;
  if (tls.alpn_protocols?.length) opts.ALPNProtocols = [...tls.alpn_protocols];
  try {
    // built at build time so a wrong key_pass or a mismatched key is a build error, not a listen error
    opts.secureContext = createSecureContext(opts);
  } catch (err) {
    throw new Error(`tls: ${(err as Error).message}`);
  }
  return opts;
}
