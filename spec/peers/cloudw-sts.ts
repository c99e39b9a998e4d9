/**
 * A strict STS server for `auth.assume_role` tests: the Query protocol's `AssumeRole`
 * (form body `Action=AssumeRole&Version=2011-06-15&RoleArn=…&RoleSessionName=…`), signed with
 * SigV4 for service `sts` by a known key, answered with the service's XML (or its error XML).
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, startHttpPeer } from './http-peer.js';
import { type SigV4Key, verifySigV4 } from './sigv4.js';

/** The role the server lets the caller assume, and what it hands out. */
export interface StsRole {
  readonly arn: string;
  readonly externalId?: string;
  /** Credentials handed out; `expiration` defaults to an hour from now. */
  readonly issue: () => { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration?: Date };
}

export interface StsPeer extends HttpPeer {
  /** The parsed forms of the AssumeRole calls accepted, in order. */
  readonly assumed: URLSearchParams[];
}

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const errorXml = (status: number, code: string, message: string): PeerResponse => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>c0ffee00-0000-0000-0000-000000000000</RequestId></ErrorResponse>`,
});

/** Starts the server; callers sign with one of `keys`. */
export async function startStsPeer(opts: { keys: readonly SigV4Key[]; roles: readonly StsRole[]; region?: string }): Promise<StsPeer> {
  const assumed: URLSearchParams[] = [];
  const handle = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST' || req.path !== '/') return errorXml(404, 'InvalidAction', `${req.method} ${req.path}`);
    const sig = verifySigV4({ method: req.method, url: req.path, headers: req.headers, body: req.raw }, { service: 'sts', region: opts.region, keys: opts.keys });
    if (!sig.ok) return errorXml(sig.code === 'UnrecognizedClientException' ? 403 : sig.status, sig.code === 'UnrecognizedClientException' ? 'InvalidClientTokenId' : 'SignatureDoesNotMatch', sig.message);
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return errorXml(400, 'InvalidParameterValue', 'content type must be form-encoded');
    const form = new URLSearchParams(req.raw.toString('utf8'));
    if (form.get('Action') !== 'AssumeRole') return errorXml(400, 'InvalidAction', `unknown action ${form.get('Action')}`);
    if (form.get('Version') !== '2011-06-15') return errorXml(400, 'InvalidParameterValue', 'Version must be 2011-06-15');
    const session = form.get('RoleSessionName') ?? '';
    if (!/^[\w+=,.@-]{2,64}$/.test(session)) return errorXml(400, 'ValidationError', `RoleSessionName '${session}' is invalid`);
    const role = opts.roles.find((r) => r.arn === form.get('RoleArn'));
    if (!role) return errorXml(403, 'AccessDenied', `not authorized to perform: sts:AssumeRole on resource: ${form.get('RoleArn')}`);
    if (role.externalId !== undefined && form.get('ExternalId') !== role.externalId) return errorXml(403, 'AccessDenied', 'external id does not match');
    assumed.push(form);
    const c = role.issue();
    const exp = (c.expiration ?? new Date(Date.now() + 3_600_000)).toISOString();
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body:
        '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>' +
        `<Credentials><AccessKeyId>${c.accessKeyId}</AccessKeyId><SecretAccessKey>${xmlEscape(c.secretAccessKey)}</SecretAccessKey><SessionToken>${xmlEscape(c.sessionToken)}</SessionToken><Expiration>${exp}</Expiration></Credentials>` +
        `<AssumedRoleUser><Arn>${xmlEscape(role.arn)}/${session}</Arn><AssumedRoleId>AROA0000:${session}</AssumedRoleId></AssumedRoleUser>` +
        '</AssumeRoleResult><ResponseMetadata><RequestId>c0ffee00-0000-0000-0000-000000000001</RequestId></ResponseMetadata></AssumeRoleResponse>',
    };
  };
  const peer = await startHttpPeer(handle);
  return Object.assign(peer, { assumed });
}
