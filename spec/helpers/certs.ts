/**
 * Test certificates made with the openssl CLI in a temp dir: a CA, a server certificate for
 * 127.0.0.1/localhost, a client identity (PEM, encrypted PEM key, DER, PKCS#12), and a stranger CA.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  readonly dir: string;
  /** File paths. */
  readonly caCrt: string;
  readonly caDer: string;
  readonly serverCrt: string;
  readonly serverKey: string;
  readonly clientCrt: string;
  readonly clientKey: string;
  readonly clientKeyEncrypted: string;
  readonly clientKeyDer: string;
  readonly clientP12: string;
  /** Passphrase of the encrypted key and of the PKCS#12 file. */
  readonly pass: string;
  /** A client identity signed by another CA (refused by the server). */
  readonly strangerCrt: string;
  readonly strangerKey: string;
  /** A server certificate for another host name, signed by the CA. */
  readonly otherHostCrt: string;
  readonly otherHostKey: string;
  read(path: string): Buffer;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`openssl ${args.join(' ')} failed: ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
}

/** Generates everything (about half a second of openssl). */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'weir-certs-'));
  const p = (f: string) => join(dir, f);
  const pass = 'secret-pass';
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string) => openssl(['req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`], dir);
  const leaf = (name: string, cn: string, caName: string, san: string) => {
    openssl(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
    writeFileSync(p(`${name}.ext`), `subjectAltName=${san}\n`);
    openssl(
      ['x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.crt`, '-CAkey', `${caName}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`],
      dir,
    );
  };
  ca('ca');
  ca('stranger-ca');
  leaf('server', 'localhost', 'ca', 'DNS:localhost,IP:127.0.0.1');
  leaf('otherhost', 'elsewhere.example', 'ca', 'DNS:elsewhere.example');
  leaf('client', 'weir-client', 'ca', 'DNS:weir-client');
  leaf('stranger', 'stranger', 'stranger-ca', 'DNS:stranger');
  openssl(['x509', '-in', 'ca.crt', '-outform', 'DER', '-out', 'ca.der'], dir);
  openssl(['pkcs8', '-topk8', '-in', 'client.key', '-out', 'client-enc.key', '-passout', `pass:${pass}`, '-v2', 'aes-256-cbc'], dir);
  openssl(['pkcs8', '-topk8', '-nocrypt', '-in', 'client.key', '-outform', 'DER', '-out', 'client.key.der'], dir);
  openssl(['pkcs12', '-export', '-in', 'client.crt', '-inkey', 'client.key', '-out', 'client.p12', '-passout', `pass:${pass}`], dir);
  return {
    dir,
    caCrt: p('ca.crt'),
    caDer: p('ca.der'),
    serverCrt: p('server.crt'),
    serverKey: p('server.key'),
    clientCrt: p('client.crt'),
    clientKey: p('client.key'),
    clientKeyEncrypted: p('client-enc.key'),
    clientKeyDer: p('client.key.der'),
    clientP12: p('client.p12'),
    pass,
    strangerCrt: p('stranger.crt'),
    strangerKey: p('stranger.key'),
    otherHostCrt: p('otherhost.crt'),
    otherHostKey: p('otherhost.key'),
    read: (f) => readFileSync(f),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
