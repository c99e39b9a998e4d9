/**
 * The broker's side of SASL PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802, RFC 7677), as Kafka
 * runs them inside SaslAuthenticate requests: PLAIN in one message, SCRAM in two round trips (client
 * first / server first, client final / server final) with 4096 PBKDF2 iterations, Kafka's minimum.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** One exchange step: bytes to answer, whether the client is now authenticated, or a failure message. */
export type SaslStep = { readonly reply: Buffer; readonly done: boolean } | { readonly error: string };

const ITERATIONS = 4096;

/** The server half of one authentication exchange. */
export interface SaslExchange {
  step(auth: Buffer): SaslStep;
}

export function saslExchange(mechanism: SaslMechanism, users: ReadonlyMap<string, string>): SaslExchange {
  return mechanism === 'PLAIN' ? plain(users) : scram(mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', mechanism, users);
}

function plain(users: ReadonlyMap<string, string>): SaslExchange {
  return {
    step(auth) {
      const parts = auth.toString('utf8').split('\0');
      if (parts.length !== 3) return { error: 'Authentication failed: Invalid SASL/PLAIN message' };
      const [, user, password] = parts;
      const expected = users.get(user!);
      if (expected === undefined || expected !== password) return { error: 'Authentication failed: Invalid username or password' };
      return { reply: Buffer.alloc(0), done: true };
    },
  };
}

function scram(hash: 'sha256' | 'sha512', mechanism: string, users: ReadonlyMap<string, string>): SaslExchange {
  const keyLength = hash === 'sha256' ? 32 : 64;
  const hmac = (key: Buffer, data: string) => createHmac(hash, key).update(data).digest();
  const failed = { error: `Authentication failed during authentication due to invalid credentials with SASL mechanism ${mechanism}` };
  let state: { clientFirstBare: string; serverFirst: string; nonce: string; salted: Buffer | undefined } | undefined;
  let finished = false;
  return {
    step(auth) {
      const text = auth.toString('utf8');
      if (finished) return { error: 'SCRAM exchange already finished' };
      if (state === undefined) {
        // gs2 header ("n,," or "n,a=authzid,") then the bare message
        const m = /^[ny],(?:a=[^,]*)?,(n=([^,]*),r=([^,]+).*)$/.exec(text);
        if (m === null) return { error: 'Invalid SCRAM client first message' };
        const user = m[2]!.replace(/=2C/g, ',').replace(/=3D/g, '=');
        const password = users.get(user);
        const salt = randomBytes(16);
        const nonce = m[3]! + randomBytes(18).toString('base64');
        const serverFirst = `r=${nonce},s=${salt.toString('base64')},i=${ITERATIONS}`;
        // an unknown user gets a made-up salt and fails at the proof, as a real server does
        const salted = password === undefined ? undefined : pbkdf2Sync(password, salt, ITERATIONS, keyLength, hash);
        state = { clientFirstBare: m[1]!, serverFirst, nonce, salted };
        return { reply: Buffer.from(serverFirst), done: false };
      }
      finished = true;
      const m = /^(c=[^,]*,r=([^,]+)(?:,[^p][^,]*)*),p=([A-Za-z0-9+/=]+)$/.exec(text);
      // Kafka's server checks that the nonce ends with its own: librdkafka sends its nonce before the combined one
      if (m === null || !m[2]!.endsWith(state.nonce) || state.salted === undefined) return failed;
      const authMessage = `${state.clientFirstBare},${state.serverFirst},${m[1]!}`;
      const clientKey = hmac(state.salted, 'Client Key');
      const storedKey = createHash(hash).update(clientKey).digest();
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.from(m[3]!, 'base64');
      if (proof.length !== signature.length) return failed;
      const recovered = Buffer.alloc(proof.length);
      for (let i = 0; i < proof.length; i++) recovered[i] = proof[i]! ^ signature[i]!;
      if (!timingSafeEqual(createHash(hash).update(recovered).digest(), storedKey)) return failed;
      const serverSignature = hmac(hmac(state.salted, 'Server Key'), authMessage);
      return { reply: Buffer.from(`v=${serverSignature.toString('base64')}`), done: true };
    },
  };
}
