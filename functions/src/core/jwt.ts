import { JwtRsaVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { Fetcher } from 'aws-jwt-verify/https';
import { env } from './env.js';

export type Claims = Record<string, unknown> & { sub: string };

let verifier: ReturnType<typeof JwtRsaVerifier.create> | undefined;

/** The library's own fetcher only speaks https; the local Cognito stand-in serves its JWKS over http. */
const fetcher: Fetcher = {
  async fetch(uri) {
    const res = await fetch(uri, { signal: AbortSignal.timeout(3000) });
    if (!res.ok) throw new Error(`JWKS fetch failed: ${res.status}`);
    return res.arrayBuffer();
  },
};

/**
 * Verifies a Cognito access or id token the way the HTTP API's JWT authorizer does (issuer,
 * signature, expiry, audience/client_id). Used where no authorizer runs: WebSocket $connect and
 * the public sign-in route that registers the session.
 */
export async function verifyToken(token: string): Promise<Claims> {
  verifier ??= JwtRsaVerifier.create(
    { issuer: env.jwtIssuer, jwksUri: env.jwksUri, audience: null },
    { jwksCache: new SimpleJwksCache({ fetcher }) },
  );
  const payload = (await verifier.verify(token)) as Claims;
  const audience = (payload.client_id ?? payload.aud) as string | string[] | undefined;
  const audiences = Array.isArray(audience) ? audience : [audience];
  if (!audiences.includes(env.userPoolClientId)) throw new Error('token audience mismatch');
  return payload;
}

/**
 * The sign-in session a token belongs to: Cognito's origin_jti (its refreshed tokens keep it, as the
 * local stand-in's do), else the sign-in's auth_time (a pool client without token revocation).
 */
export function sessionOf(claims: Record<string, unknown>): { id: string; authTime: number } {
  const authTime = Number(claims.auth_time ?? claims.iat ?? 0);
  const originJti = typeof claims.origin_jti === 'string' ? claims.origin_jti : undefined;
  return { id: originJti ?? String(authTime), authTime };
}

export function bearer(headers: Record<string, string | undefined>): string | undefined {
  const h = headers.authorization ?? headers.Authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m?.[1];
}
