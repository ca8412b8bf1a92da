import { describe, expect, it } from 'vitest';
import { CognitoIdentityProviderClient, GetTokensFromRefreshTokenCommand } from '@aws-sdk/client-cognito-identity-provider';
import { cognitoCall, endpoints, mailbox, PASSWORD, signIn, uniqueEmail, waitForMail } from '../support/index.js';

const payload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

/** A user made straight in the pool (no API involved), password set as permanent. */
async function poolUser() {
  const e = endpoints();
  const email = uniqueEmail('cognito');
  await cognitoCall('AdminCreateUser', {
    UserPoolId: e.cognito.userPoolId,
    Username: email,
    MessageAction: 'SUPPRESS',
    UserAttributes: [
      { Name: 'email', Value: email },
      { Name: 'email_verified', Value: 'true' },
    ],
  });
  await cognitoCall('AdminSetUserPassword', { UserPoolId: e.cognito.userPoolId, Username: email, Password: PASSWORD, Permanent: true });
  return email;
}

describe('local Cognito', () => {
  it('puts the ForgotPassword code in the local mailbox, and the code resets the password', async () => {
    const e = endpoints();
    const email = await poolUser();
    expect(await mailbox(email)).toEqual([]);
    const since = Date.now();
    await cognitoCall('ForgotPassword', { ClientId: e.cognito.userPoolClientId, Username: email });
    const mail = await waitForMail(email, since);
    expect(mail).toMatchObject({ to: email, subject: expect.any(String) });
    expect(mail.code).toMatch(/^\d{6}$/);
    // The pool's policy (8+, upper, lower, digit) holds locally as it does in AWS.
    for (const weak of ['Ab1', 'nova12345', 'NOVA12345', 'NovaSenha']) {
      await expect(
        cognitoCall('ConfirmForgotPassword', { ClientId: e.cognito.userPoolClientId, Username: email, ConfirmationCode: mail.code, Password: weak }),
      ).rejects.toMatchObject({ type: 'InvalidPasswordException' });
    }
    await cognitoCall('ConfirmForgotPassword', { ClientId: e.cognito.userPoolClientId, Username: email, ConfirmationCode: mail.code, Password: 'Nova1234x' });
    await expect(signIn(email, PASSWORD)).rejects.toMatchObject({ type: 'NotAuthorizedException', message: expect.stringContaining('Incorrect username or password.') });
    await expect(signIn(uniqueEmail('nobody'), PASSWORD)).rejects.toMatchObject({ type: 'NotAuthorizedException' });
    expect((await signIn(email, 'Nova1234x')).accessToken).toBeTruthy();
    // Newest first.
    await cognitoCall('ForgotPassword', { ClientId: e.cognito.userPoolClientId, Username: email });
    const all = await mailbox(email);
    expect(all.length).toBe(2);
    expect(Date.parse(all[0].at)).toBeGreaterThanOrEqual(Date.parse(all[1].at));
  });

  it('answers GetTokensFromRefreshToken (what Amplify refreshes with) through the real SDK client', async () => {
    const e = endpoints();
    const email = await poolUser();
    const tokens = await signIn(email, PASSWORD);
    const client = new CognitoIdentityProviderClient({ region: e.cognito.region, endpoint: e.cognito.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    // A later second: cognito-local alone would give the refreshed tokens a new auth_time.
    await new Promise((r) => setTimeout(r, 1100));
    const out = await client.send(new GetTokensFromRefreshTokenCommand({ ClientId: e.cognito.userPoolClientId, RefreshToken: tokens.refreshToken }));
    expect(out.AuthenticationResult?.AccessToken).toBeTruthy();
    expect(out.AuthenticationResult?.IdToken).toBeTruthy();
    const claims = JSON.parse(Buffer.from(out.AuthenticationResult!.AccessToken!.split('.')[1], 'base64url').toString());
    expect(claims.iss).toBe(`${e.cognito.endpoint}/${e.cognito.userPoolId}`);
    expect(claims.client_id).toBe(e.cognito.userPoolClientId);
    // Cognito's session claims: the refreshed tokens keep the sign-in's origin_jti and auth_time.
    const signedIn = payload(tokens.accessToken);
    expect(signedIn.origin_jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims).toMatchObject({ origin_jti: signedIn.origin_jti, auth_time: signedIn.auth_time });
    expect(payload(out.AuthenticationResult!.IdToken!)).toMatchObject({ origin_jti: signedIn.origin_jti, auth_time: signedIn.auth_time, aud: e.cognito.userPoolClientId });
    // Each sign-in is a session of its own, even within one second.
    const again = await Promise.all([signIn(email, PASSWORD), signIn(email, PASSWORD)]);
    expect(new Set([signedIn, ...again.map((t) => payload(t.accessToken))].map((c) => c.origin_jti)).size).toBe(3);
    await expect(client.send(new GetTokensFromRefreshTokenCommand({ ClientId: e.cognito.userPoolClientId, RefreshToken: 'bogus' }))).rejects.toThrow();
    client.destroy();
  });

  it('serves the JWKS under the issuer and lets the console origin call it', async () => {
    const e = endpoints();
    const jwks: any = await (await fetch(`${e.cognito.endpoint}/${e.cognito.userPoolId}/.well-known/jwks.json`)).json();
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' });
    const pre = await fetch(e.cognito.endpoint, { method: 'OPTIONS', headers: { origin: e.webUrl, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-amz-target' } });
    expect(pre.headers.get('access-control-allow-origin')).toBeTruthy();
  });
});
