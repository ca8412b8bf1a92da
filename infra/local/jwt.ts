import crypto from 'node:crypto';

/**
 * Checks a bearer token the way API Gateway's JWT authorizer does (issuer + audience config):
 * RS256 signature against the issuer's JWKS, `iss`, `exp`/`nbf`, and `aud` or — for Cognito access
 * tokens, which carry no `aud` — `client_id` within the audience list.
 */
export class JwtAuthorizer {
  private keys = new Map<string, crypto.KeyObject>();
  private lastFetch = 0;

  constructor(
    private issuer: string,
    private audience: string[],
    private jwksUri: string,
  ) {}

  private fetching: Promise<void> | undefined;

  private async key(kid: string) {
    if (!this.keys.has(kid)) {
      // Concurrent requests share one JWKS fetch; an unknown kid refetches at most every 5 s so a
      // flood of forged kids cannot hammer the JWKS endpoint.
      if (!this.fetching && Date.now() - this.lastFetch > 5000) {
        this.lastFetch = Date.now();
        this.fetching = (async () => {
          const res = await fetch(this.jwksUri);
          if (!res.ok) throw new Error(`JWKS ${res.status}`);
          const { keys } = (await res.json()) as { keys: (crypto.JsonWebKey & { kid: string })[] };
          for (const j of keys) this.keys.set(j.kid, crypto.createPublicKey({ key: j, format: 'jwk' }));
        })().finally(() => (this.fetching = undefined));
      }
      if (this.fetching) {
        await this.fetching.catch(() => {
          this.lastFetch = 0; // a failed fetch must not block the next attempt
        });
      }
    }
    return this.keys.get(kid);
  }

  /** Returns the claims, or throws with the reason. */
  async verify(token: string): Promise<Record<string, unknown>> {
    const parts = token.split('.');
    if (parts.length !== 3) throw new Error('malformed token');
    const [h, p, s] = parts;
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    if (header.alg !== 'RS256') throw new Error(`alg ${header.alg} not allowed`);
    const key = await this.key(String(header.kid));
    if (!key) throw new Error('unknown kid');
    const ok = crypto.verify('RSA-SHA256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'));
    if (!ok) throw new Error('bad signature');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (claims.iss !== this.issuer) throw new Error('issuer mismatch');
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number' || claims.exp <= now) throw new Error('expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now) throw new Error('not yet valid');
    const aud = Array.isArray(claims.aud) ? claims.aud : claims.aud !== undefined ? [claims.aud] : [];
    const okAud = aud.some((a) => this.audience.includes(String(a))) || (aud.length === 0 && this.audience.includes(String(claims.client_id)));
    if (!okAud) throw new Error('audience mismatch');
    return claims;
  }
}
