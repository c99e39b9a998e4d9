import { NodeHttpHandler } from '@smithy/node-http-handler';
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { CredentialsError, CredentialsNotFoundError, cloudwCredentials } from '../../../../connectors/shared/cloudw/credentials.js';
import { type CloudwAuth, cloudwAuthSchema } from '../../../../connectors/shared/cloudw/options.js';
import { freePort } from '../../../helpers/free-port.js';
import { type ImdsPeer, startImdsPeer } from '../../../peers/imds.js';
import { type StsPeer, startStsPeer } from '../../../peers/cloudw-sts.js';

const auth = (a: Record<string, unknown> = {}): CloudwAuth => v.parse(cloudwAuthSchema, a);

describe('cloudw credentials', () => {
  let dir: string;
  let closedPort: number;
  /** An environment that finds nothing unless a test adds to it. */
  let bare: Record<string, string>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-'));
    closedPort = await freePort();
    bare = { HOME: dir, CLOUDW_EC2_METADATA_SERVICE_ENDPOINT: `http://127.0.0.1:${closedPort}` };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('the chain', () => {
    it('takes auth.access_key_id/secret_access_key/session_token first, before the variables', async () => {
      const c = await cloudwCredentials(auth({ access_key_id: 'AKCONFIG', secret_access_key: 's1', session_token: 't1' }), { ...bare, CLOUDW_ACCESS_KEY_ID: 'AKENV', CLOUDW_SECRET_ACCESS_KEY: 's2' })();
      expect(c).to.include({ accessKeyId: 'AKCONFIG', secretAccessKey: 's1', sessionToken: 't1' });
    });

    it('takes CLOUDW_ACCESS_KEY_ID/CLOUDW_SECRET_ACCESS_KEY/CLOUDW_SESSION_TOKEN, over the AWS_ names', async () => {
      const env = { ...bare, CLOUDW_ACCESS_KEY_ID: 'AKCW', CLOUDW_SECRET_ACCESS_KEY: 'cw', CLOUDW_SESSION_TOKEN: 'tok', AWS_ACCESS_KEY_ID: 'AKAWS', AWS_SECRET_ACCESS_KEY: 'aws' };
      expect(await cloudwCredentials(auth(), env)()).to.include({ accessKeyId: 'AKCW', secretAccessKey: 'cw', sessionToken: 'tok' });
    });

    it('accepts the AWS_ names when no CLOUDW_ pair is set', async () => {
      const env = { ...bare, AWS_ACCESS_KEY_ID: 'AKAWS', AWS_SECRET_ACCESS_KEY: 'aws' };
      expect(await cloudwCredentials(auth(), env)()).to.include({ accessKeyId: 'AKAWS', secretAccessKey: 'aws' });
    });

    it('reads the profile named by auth.profile from CLOUDW_SHARED_CREDENTIALS_FILE, before instance metadata', async () => {
      const file = join(dir, 'creds-a');
      writeFileSync(file, '[default]\naws_access_key_id = AKDEF\naws_secret_access_key = def\n\n[ops]\naws_access_key_id = AKOPS\naws_secret_access_key = ops\naws_session_token = opstok\n');
      const env = { ...bare, CLOUDW_SHARED_CREDENTIALS_FILE: file };
      expect(await cloudwCredentials(auth({ profile: 'ops' }), env)()).to.include({ accessKeyId: 'AKOPS', secretAccessKey: 'ops', sessionToken: 'opstok' });
      expect(await cloudwCredentials(auth(), env)()).to.include({ accessKeyId: 'AKDEF' });
      expect(await cloudwCredentials(auth(), { ...env, CLOUDW_PROFILE: 'ops' })()).to.include({ accessKeyId: 'AKOPS' }, 'CLOUDW_PROFILE when auth.profile is absent');
    });

    it('reads auth.credentials_file, and keys from CLOUDW_CONFIG_FILE under [profile name]', async () => {
      const file = join(dir, 'creds-b');
      writeFileSync(file, '[x]\naws_access_key_id = AKFILE\naws_secret_access_key = f\n');
      expect(await cloudwCredentials(auth({ credentials_file: file, profile: 'x' }), bare)()).to.include({ accessKeyId: 'AKFILE' });
      const config = join(dir, 'config-b');
      writeFileSync(config, '[profile y]\nregion = eu-west-1\naws_access_key_id = AKCFG\naws_secret_access_key = c\n');
      expect(await cloudwCredentials(auth({ profile: 'y' }), { ...bare, CLOUDW_CONFIG_FILE: config })()).to.include({ accessKeyId: 'AKCFG' });
    });

    it('uses the per-user credentials file under HOME by default', async () => {
      const home = mkdtempSync(join(dir, 'home-'));
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(home, '.aws'));
      writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_access_key_id = AKHOME\naws_secret_access_key = h\n');
      expect(await cloudwCredentials(auth(), { ...bare, HOME: home })()).to.include({ accessKeyId: 'AKHOME' });
    });

    it('reads indented keys, skips sub-properties and comments', async () => {
      const file = join(dir, 'creds-indented');
      writeFileSync(file, '# keys\n[default]\n  aws_access_key_id = AKIND\ns3 =\n  aws_secret_access_key = not-this\n; more\naws_secret_access_key = ind\n');
      expect(await cloudwCredentials(auth(), { ...bare, CLOUDW_SHARED_CREDENTIALS_FILE: file })()).to.include({ accessKeyId: 'AKIND', secretAccessKey: 'ind' });
    });

    it('refuses credential_process with an error naming the profile and the file', async () => {
      const file = join(dir, 'creds-process');
      writeFileSync(file, '[default]\ncredential_process = /usr/bin/get-keys\n');
      const err = await cloudwCredentials(auth(), { ...bare, CLOUDW_SHARED_CREDENTIALS_FILE: file })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsError);
      expect((err as Error).message).to.match(/profile "default" in .*creds-process uses credential_process, which is not supported/);
    });

    it('refuses credential_process in the config file too, and runs nothing', async () => {
      const marker = join(dir, 'process-ran');
      const creds = join(dir, 'creds-with-process-config');
      const config = join(dir, 'config-process');
      writeFileSync(creds, '[p]\naws_access_key_id = AKP\naws_secret_access_key = p\n');
      writeFileSync(config, `[profile p]\ncredential_process = touch ${marker}\n`);
      const err = await cloudwCredentials(auth({ profile: 'p' }), { ...bare, CLOUDW_SHARED_CREDENTIALS_FILE: creds, CLOUDW_CONFIG_FILE: config })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsError);
      expect((err as Error).message).to.match(/profile "p" in .*config-process uses credential_process/);
      expect(existsSync(marker)).to.equal(false);
    });

    it('refuses role_arn in the profile, beside keys too, and sends nothing to STS', async () => {
      const file = join(dir, 'creds-role');
      writeFileSync(file, '[base]\naws_access_key_id = AKB\naws_secret_access_key = b\n[r]\naws_access_key_id = AKR\naws_secret_access_key = r\nrole_arn = arn:aws:iam::123456789012:role/x\nsource_profile = base\n');
      const err = await cloudwCredentials(auth({ profile: 'r' }), { ...bare, CLOUDW_SHARED_CREDENTIALS_FILE: file })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsError);
      expect((err as Error).message).to.match(/profile "r" in .*creds-role names role_arn, which is not supported there/);
    });

    it('counts a profile without keys (single sign-on) as a miss and goes on', async () => {
      const config = join(dir, 'config-sso');
      writeFileSync(config, '[profile s]\nsso_session = corp\nsso_account_id = 123456789012\nsso_role_name = reader\n[sso-session corp]\nsso_start_url = https://example.invalid/start\nsso_region = us-east-1\n');
      const err = await cloudwCredentials(auth({ profile: 's', imds: { max_attempts: 1 } }), { ...bare, CLOUDW_CONFIG_FILE: config })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsNotFoundError);
      expect((err as Error).message).to.contain('profile "s" (no keys for the profile)').and.contain('instance metadata');
    });

    it('reads the shared files again for each lookup', async () => {
      const file = join(dir, 'creds-rotated');
      writeFileSync(file, '[default]\naws_access_key_id = AKFIRST\naws_secret_access_key = 1\n');
      const env = { ...bare, CLOUDW_SHARED_CREDENTIALS_FILE: file };
      expect(await cloudwCredentials(auth(), env)()).to.include({ accessKeyId: 'AKFIRST' });
      writeFileSync(file, '[default]\naws_access_key_id = AKSECOND\naws_secret_access_key = 2\n');
      expect(await cloudwCredentials(auth(), env)()).to.include({ accessKeyId: 'AKSECOND' });
    });

    it('names every source tried when none has credentials', async () => {
      const err = await cloudwCredentials(auth({ imds: { max_attempts: 2 } }), bare)().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsNotFoundError);
      const msg = (err as Error).message;
      expect(msg).to.match(/^no credentials; tried: /);
      for (const part of ['auth.access_key_id', 'CLOUDW_ACCESS_KEY_ID', 'shared credentials file', `instance metadata http://127.0.0.1:${closedPort}`, '2 attempts']) expect(msg).to.contain(part);
    });
  });

  describe('instance metadata (v2)', () => {
    let imds: ImdsPeer;
    before(async () => {
      imds = await startImdsPeer('weir-role', { accessKeyId: 'ASIAIMDS', secretAccessKey: 'imds', token: 'imds-token', expiration: new Date(Date.now() + 3_600_000) });
    });
    after(() => imds.close());
    beforeEach(() => {
      imds.requests.length = 0;
      imds.fault = undefined;
    });

    it('gets a session token, the role, then its credentials', async () => {
      const c = await cloudwCredentials(auth(), { ...bare, CLOUDW_EC2_METADATA_SERVICE_ENDPOINT: imds.url })();
      expect(c).to.include({ accessKeyId: 'ASIAIMDS', secretAccessKey: 'imds', sessionToken: 'imds-token' });
      expect(imds.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal([
        'PUT /latest/api/token',
        'GET /latest/meta-data/iam/security-credentials/',
        'GET /latest/meta-data/iam/security-credentials/weir-role',
      ]);
    });

    it('also takes AWS_EC2_METADATA_SERVICE_ENDPOINT', async () => {
      const env = { HOME: dir, AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.url };
      expect(await cloudwCredentials(auth(), env)()).to.include({ accessKeyId: 'ASIAIMDS' });
    });

    it('tries auth.imds.max_attempts times, then gives up', async () => {
      imds.fault = () => 500;
      const err = await cloudwCredentials(auth({ imds: { max_attempts: 3 } }), { ...bare, CLOUDW_EC2_METADATA_SERVICE_ENDPOINT: imds.url })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsNotFoundError);
      expect(imds.requests.filter((r) => r.path === '/latest/api/token')).to.have.length(3);
      expect((err as Error).message).to.contain('3 attempts').and.contain('hop limit');
    });

    it('ends within auth.load_timeout_secs when the service does not answer', async () => {
      imds.fault = () => 'stall';
      const err = await cloudwCredentials(auth({ load_timeout_secs: 1, imds: { read_timeout_seconds: 30 } }), { ...bare, CLOUDW_EC2_METADATA_SERVICE_ENDPOINT: imds.url })().catch((e: unknown) => e);
      expect((err as Error).message).to.contain('auth.load_timeout_secs (1 s)');
    });

    it('gives up an attempt after auth.imds.read_timeout_seconds without an answer', async () => {
      imds.fault = () => 'stall';
      const err = await cloudwCredentials(auth({ load_timeout_secs: 30, imds: { max_attempts: 2, read_timeout_seconds: 0.2 } }), { ...bare, CLOUDW_EC2_METADATA_SERVICE_ENDPOINT: imds.url })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsNotFoundError);
      expect((err as Error).message).to.contain('2 attempts').and.contain('no answer within 200 ms');
      expect(imds.requests.filter((r) => r.path === '/latest/api/token')).to.have.length(2);
    });

    it('looks credentials up again when they expire, and keeps them while they are fresh', async () => {
      imds.credentials = { accessKeyId: 'ASIAOLD', secretAccessKey: 'old', token: 't-old', expiration: new Date(Date.now() + 60_000) }; // inside the refresh margin
      const provider = cloudwCredentials(auth(), { ...bare, CLOUDW_EC2_METADATA_SERVICE_ENDPOINT: imds.url });
      expect(await provider()).to.include({ accessKeyId: 'ASIAOLD' });
      imds.credentials = { accessKeyId: 'ASIANEW', secretAccessKey: 'new', token: 't-new', expiration: new Date(Date.now() + 3_600_000) };
      expect(await provider()).to.include({ accessKeyId: 'ASIANEW' });
      const before = imds.requests.length;
      expect(await provider()).to.include({ accessKeyId: 'ASIANEW' });
      expect(imds.requests.length).to.equal(before, 'fresh credentials are not fetched again');
    });
  });

  describe('CLOUDW_CREDENTIAL_EXPIRATION', () => {
    it('makes variable credentials expire, so they are read again', async () => {
      const env: Record<string, string> = { ...bare, CLOUDW_ACCESS_KEY_ID: 'AK1', CLOUDW_SECRET_ACCESS_KEY: 's', CLOUDW_CREDENTIAL_EXPIRATION: new Date(Date.now() + 1000).toISOString() };
      const provider = cloudwCredentials(auth(), env);
      const first = await provider();
      expect(first.expiration?.toISOString()).to.equal(env.CLOUDW_CREDENTIAL_EXPIRATION);
      env.CLOUDW_ACCESS_KEY_ID = 'AK2';
      expect(await provider()).to.include({ accessKeyId: 'AK2' });
    });

    it('keeps credentials without an expiration for good', async () => {
      const env: Record<string, string> = { ...bare, CLOUDW_ACCESS_KEY_ID: 'AK1', CLOUDW_SECRET_ACCESS_KEY: 's' };
      const provider = cloudwCredentials(auth(), env);
      await provider();
      env.CLOUDW_ACCESS_KEY_ID = 'AK2';
      expect(await provider()).to.include({ accessKeyId: 'AK1' });
    });

    it('refuses a value that is not RFC 3339', async () => {
      const err = await cloudwCredentials(auth(), { ...bare, CLOUDW_ACCESS_KEY_ID: 'AK1', CLOUDW_SECRET_ACCESS_KEY: 's', CLOUDW_CREDENTIAL_EXPIRATION: 'tomorrow' })().catch((e: unknown) => e);
      expect((err as Error).message).to.contain('CLOUDW_CREDENTIAL_EXPIRATION');
    });
  });

  describe('auth.assume_role', () => {
    let sts: StsPeer;
    let issued = 0;
    before(async () => {
      sts = await startStsPeer({
        keys: [{ accessKeyId: 'AKBASE', secretAccessKey: 'base-secret' }],
        roles: [
          { arn: 'arn:aws:iam::123456789012:role/writer', issue: () => ({ accessKeyId: `ASIAROLE${++issued}`, secretAccessKey: 'role-secret', sessionToken: 'role-token' }) },
          { arn: 'arn:aws:iam::123456789012:role/guarded', externalId: 'ext-1', issue: () => ({ accessKeyId: 'ASIAGUARD', secretAccessKey: 'g', sessionToken: 'gt' }) },
          // expires inside the refresh margin, so every use assumes it again
          { arn: 'arn:aws:iam::123456789012:role/brief', issue: () => ({ accessKeyId: `ASIABRIEF${++issued}`, secretAccessKey: 'b', sessionToken: 'bt', expiration: new Date(Date.now() + 60_000) }) },
        ],
      });
    });
    after(() => sts.close());

    it('trades the chain credentials for the role, signing AssumeRole with them, with CLOUDW_ROLE_SESSION_NAME', async () => {
      const a = auth({ access_key_id: 'AKBASE', secret_access_key: 'base-secret', assume_role: 'arn:aws:iam::123456789012:role/writer' });
      const c = await cloudwCredentials(a, { ...bare, CLOUDW_ROLE_SESSION_NAME: 'weir-test' }, { endpoint: sts.url, region: 'eu-west-1' })();
      expect(c.accessKeyId).to.match(/^ASIAROLE\d+$/);
      expect(c).to.include({ secretAccessKey: 'role-secret', sessionToken: 'role-token' });
      expect(c.expiration).to.be.instanceOf(Date);
      const form = sts.assumed.at(-1) as URLSearchParams;
      expect(form.get('RoleArn')).to.equal('arn:aws:iam::123456789012:role/writer');
      expect(form.get('RoleSessionName')).to.equal('weir-test');
    });

    it('sends external_id and session_name, and CLOUDW_ENDPOINT_URL_STS overrides the component endpoint', async () => {
      const a = auth({ access_key_id: 'AKBASE', secret_access_key: 'base-secret', assume_role: 'arn:aws:iam::123456789012:role/guarded', external_id: 'ext-1', session_name: 'mine' });
      const c = await cloudwCredentials(a, { ...bare, CLOUDW_ENDPOINT_URL_STS: sts.url }, { endpoint: `http://127.0.0.1:${closedPort}` })();
      expect(c.accessKeyId).to.equal('ASIAGUARD');
      expect(sts.assumed.at(-1)?.get('ExternalId')).to.equal('ext-1');
      expect(sts.assumed.at(-1)?.get('RoleSessionName')).to.equal('mine');
    });

    it('fails with the role named when STS refuses the base credentials', async () => {
      const a = auth({ access_key_id: 'AKBASE', secret_access_key: 'wrong', assume_role: 'arn:aws:iam::123456789012:role/writer' });
      const err = await cloudwCredentials(a, bare, { endpoint: sts.url })().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsError);
      expect((err as Error).message).to.contain('auth.assume_role arn:aws:iam::123456789012:role/writer').and.contain('signature');
    });
    it('assumes the role again when its credentials expire, and keeps them while they are fresh', async () => {
      const base = { access_key_id: 'AKBASE', secret_access_key: 'base-secret' };
      const brief = cloudwCredentials(auth({ ...base, assume_role: 'arn:aws:iam::123456789012:role/brief' }), bare, { endpoint: sts.url });
      const first = await brief();
      const second = await brief();
      expect(second.accessKeyId).to.not.equal(first.accessKeyId);
      const lasting = cloudwCredentials(auth({ ...base, assume_role: 'arn:aws:iam::123456789012:role/writer' }), bare, { endpoint: sts.url });
      const calls = sts.assumed.length;
      const a = await lasting();
      expect(await lasting()).to.include({ accessKeyId: a.accessKeyId });
      expect(sts.assumed.length).to.equal(calls + 1);
    });

    it('ends a stalled AssumeRole at auth.load_timeout_secs, aborting it on the component request handler', async () => {
      const handler = new NodeHttpHandler();
      const signals: (AbortSignal | undefined)[] = [];
      const handle = handler.handle.bind(handler);
      handler.handle = (request, options) => {
        signals.push(options?.abortSignal as AbortSignal | undefined);
        return handle(request, options);
      };
      sts.fault = () => 'stall';
      try {
        const a = auth({ access_key_id: 'AKBASE', secret_access_key: 'base-secret', assume_role: 'arn:aws:iam::123456789012:role/writer', load_timeout_secs: 1 });
        const err = await cloudwCredentials(a, bare, { endpoint: sts.url, requestHandler: handler })().catch((e: unknown) => e);
        expect((err as Error).message).to.contain('auth.load_timeout_secs (1 s)');
        expect(signals).to.have.length(1);
        expect(signals[0]?.aborted).to.equal(true);
      } finally {
        sts.fault = undefined;
        handler.destroy();
      }
    });
  });

  describe('options', () => {
    it('names the option that lacks its partner', () => {
      const r = v.safeParse(cloudwAuthSchema, { access_key_id: 'AK' });
      expect(r.success).to.equal(false);
      expect(v.flatten(r.issues as [v.BaseIssue<unknown>]).nested).to.have.property('access_key_id');
    });

    it('has the spec defaults', () => {
      expect(auth()).to.deep.include({ load_timeout_secs: 5, imds: { max_attempts: 4, connect_timeout_seconds: 1, read_timeout_seconds: 1 } });
    });
  });
});
