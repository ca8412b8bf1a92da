import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { closeServer, listen, readBody, type Log } from './http-util.js';

const require = createRequire(import.meta.url);
// cognito-local has no exports map; its building blocks are reachable as CommonJS files.
const cl = (p: string) => require(`cognito-local/lib/${p}`);
const cognitoLocalDir = path.dirname(require.resolve('cognito-local/package.json'));
const pino = require(require.resolve('pino', { paths: [cognitoLocalDir] }));
const jwt = require(require.resolve('jsonwebtoken', { paths: [cognitoLocalDir] }));

interface Tokens {
  AccessToken: string;
  IdToken: string;
  RefreshToken: string;
}
type TokenGenerator = { generate(...args: unknown[]): Promise<Tokens> };

/**
 * Cognito's session claims, which cognito-local lacks: each sign-in gets an `origin_jti`, and the
 * tokens refreshed from it keep that `origin_jti` and the sign-in's `auth_time` (cognito-local gives
 * them a new `auth_time`, so a refreshed token looked like another sign-in). The API names a
 * session by `origin_jti` (docs/decisions.md 1). The refresh token (a JWT here) carries both
 * claims, so a refresh after a restart finds them. `redeeming` holds the refresh token of the
 * request being served.
 */
function withSessionClaims(inner: TokenGenerator, redeeming: AsyncLocalStorage<string>): TokenGenerator {
  const { pem } = require('cognito-local/lib/keys/cognitoLocal.private.json') as { pem: string };
  // Same key, algorithm and key id as cognito-local; the payload keeps its iss, aud, iat and exp.
  const resign = (token: string, claims: Record<string, unknown>) =>
    jwt.sign({ ...jwt.decode(token), ...claims }, pem, { algorithm: 'RS256', keyid: 'CognitoLocal' }) as string;
  return {
    async generate(...args) {
      const tokens = await inner.generate(...args);
      const redeemed = redeeming.getStore();
      const origin = redeemed ? (jwt.decode(redeemed) as { origin_jti?: unknown; auth_time?: unknown } | null) : null;
      const session =
        typeof origin?.origin_jti === 'string'
          ? { origin_jti: origin.origin_jti, auth_time: origin.auth_time }
          : { origin_jti: crypto.randomUUID(), auth_time: (jwt.decode(tokens.AccessToken) as { auth_time: number }).auth_time };
      return {
        AccessToken: resign(tokens.AccessToken, session),
        IdToken: resign(tokens.IdToken, session),
        // A refresh hands back the token it redeemed (below); a sign-in's new one carries the session.
        RefreshToken: redeemed ? tokens.RefreshToken : resign(tokens.RefreshToken, session),
      };
    },
  };
}

export interface MailItem {
  to: string;
  code: string;
  subject: string;
  source: string;
  at: string;
}

/** Codes cognito-local would e-mail (ForgotPassword, AdminCreateUser…), newest first per address. */
export class Mailbox {
  private items: MailItem[] = [];
  add(item: MailItem) {
    this.items.unshift(item);
    if (this.items.length > 1000) this.items.length = 1000;
  }
  for(email: string) {
    const e = email.toLowerCase();
    return this.items.filter((m) => m.to.toLowerCase() === e);
  }
}

const SUBJECTS: Record<string, string> = {
  ForgotPassword: 'Your verification code',
  AdminCreateUser: 'Your temporary password',
  SignUp: 'Your verification code',
  ResendCode: 'Your verification code',
  UpdateUserAttribute: 'Your verification code',
  VerifyUserAttribute: 'Your verification code',
  Authentication: 'Your authentication code',
};

export interface CognitoHandle {
  endpoint: string;
  region: string;
  userPoolId: string;
  userPoolClientId: string;
  issuer: string;
  jwksUri: string;
  stop(): Promise<void>;
}

/**
 * cognito-local, in-process, behind our own HTTP server on `port`. The server answers
 * GetTokensFromRefreshToken (current Amplify refreshes with it; cognito-local lacks it) by running
 * InitiateAuth REFRESH_TOKEN_AUTH, and hands every other request to cognito-local's express app.
 * Codes are captured at the message-delivery seam, not scraped from logs.
 */
export async function startCognito(opts: { dataDir: string; port: number; log: Log; mailbox: Mailbox }): Promise<CognitoHandle> {
  const dir = path.resolve(opts.dataDir, 'cognito');
  const dbDir = path.join(dir, 'db');
  fs.mkdirSync(dbDir, { recursive: true });
  const endpoint = `http://127.0.0.1:${opts.port}`;
  const region = 'us-east-1';

  const logStream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) {
        if (!line.trim()) continue;
        try {
          const j = JSON.parse(line);
          const err = j.err?.message ? `: ${j.err.message}` : '';
          opts.log('cognito', `${j.target ? `${j.target} ` : ''}${j.msg ?? ''}${err}`);
        } catch {
          opts.log('cognito', line);
        }
      }
      cb();
    },
  });
  const logger = pino({ level: process.env.BALCAO_COGNITO_DEBUG ? 'debug' : 'info', base: undefined }, logStream);
  const ctx = { logger };

  const { DefaultConfig } = cl('server/config.js');
  const { StormDBDataStoreFactory } = cl('services/dataStore/stormDb.js');
  const { CognitoServiceFactoryImpl } = cl('services/cognitoService.js');
  const { UserPoolServiceFactoryImpl } = cl('services/userPoolService.js');
  const services_ = cl('services/index.js');
  const { CryptoService } = cl('services/crypto.js');
  const { MessageDeliveryService } = cl('services/messageDelivery/messageDelivery.js');
  const { otp } = cl('services/otp.js');
  const { JwtTokenGenerator } = cl('services/tokenGenerator.js');
  const { Router } = cl('server/Router.js');
  const { createServer } = cl('server/server.js');
  const { CognitoError } = cl('errors.js');
  const AWS = require(require.resolve('aws-sdk', { paths: [path.dirname(require.resolve('cognito-local/package.json'))] }));

  const config = {
    ...DefaultConfig,
    TokenConfig: { IssuerDomain: endpoint },
    ServerConfig: { port: opts.port, hostname: '127.0.0.1' },
    UserPoolDefaults: { UsernameAttributes: ['email'] },
  };
  const clock = new services_.DateClock();
  const dataStoreFactory = new StormDBDataStoreFactory(dbDir);
  const cognitoClient = await new CognitoServiceFactoryImpl(
    dbDir,
    dataStoreFactory,
    new UserPoolServiceFactoryImpl(clock, dataStoreFactory),
  ).create(ctx, config.UserPoolDefaults);
  const triggers = new services_.TriggersService(
    clock,
    cognitoClient,
    new services_.LambdaService(config.TriggerFunctions, new AWS.Lambda(config.LambdaClient)),
    new CryptoService(config.KMSConfig),
  );
  // The sender itself stays silent: the wrapper below records the code with its source.
  const silentSender = { sendEmail: async () => {}, sendSms: async () => {} };
  const inner = new services_.MessagesService(triggers, new MessageDeliveryService(silentSender));
  const messages = {
    async deliver(c: unknown, source: string, clientId: string | null, poolId: string, user: unknown, code: string, meta: unknown, details: { Destination: string }) {
      await inner.deliver(c, source, clientId, poolId, user, code, meta, details);
      const item = { to: details.Destination, code, subject: SUBJECTS[source] ?? source, source, at: new Date().toISOString() };
      opts.mailbox.add(item);
      opts.log('cognito', `mail to ${item.to}: code ${code} (${source})`);
    },
  };
  const redeeming = new AsyncLocalStorage<string>();
  const services = {
    clock,
    cognito: cognitoClient,
    config,
    messages,
    otp,
    tokenGenerator: withSessionClaims(new JwtTokenGenerator(clock, triggers, config.TokenConfig), redeeming),
    triggers,
  };
  const router = Router(services);
  const app = createServer(router, logger, config.ServerConfig, services).application;
  const call = (target: string, body: unknown) => router(target)(ctx, body);

  // Pool and client: created once, remembered in state.json so a restart keeps its users.
  const statePath = path.resolve(opts.dataDir, 'state.json');
  const state = fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, 'utf8')) : {};
  let poolId: string | undefined = state.userPoolId;
  let clientId: string | undefined = state.userPoolClientId;
  if (poolId) {
    try {
      await call('DescribeUserPool', { UserPoolId: poolId });
      if (clientId) await call('DescribeUserPoolClient', { UserPoolId: poolId, ClientId: clientId });
    } catch {
      opts.log('cognito', `remembered pool ${poolId} is gone; creating a new one`);
      poolId = undefined;
      clientId = undefined;
    }
  }
  if (!poolId) {
    const res = await call('CreateUserPool', {
      PoolName: 'balcao-users',
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      Policies: {
        PasswordPolicy: { MinimumLength: 8, RequireUppercase: true, RequireLowercase: true, RequireNumbers: true, RequireSymbols: false },
      },
      Schema: [{ Name: 'email', AttributeDataType: 'String', Required: true, Mutable: true }],
    });
    poolId = res.UserPool.Id as string;
    clientId = undefined;
    opts.log('cognito', `created user pool ${poolId}`);
  }
  if (!clientId) {
    const res = await call('CreateUserPoolClient', {
      UserPoolId: poolId,
      ClientName: 'balcao-web',
      GenerateSecret: false,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    });
    clientId = res.UserPoolClient.ClientId as string;
    opts.log('cognito', `created app client ${clientId}`);
  }
  fs.writeFileSync(statePath, JSON.stringify({ ...state, userPoolId: poolId, userPoolClientId: clientId }, null, 2));

  /** Password fields per target: cognito-local stores any password, a real pool enforces its policy. */
  const PASSWORD_FIELDS: Record<string, (b: any) => string | undefined> = {
    SignUp: (b) => b.Password,
    ConfirmForgotPassword: (b) => b.Password,
    ChangePassword: (b) => b.ProposedPassword,
    AdminSetUserPassword: (b) => b.Password,
    AdminCreateUser: (b) => b.TemporaryPassword,
    RespondToAuthChallenge: (b) => b.ChallengeResponses?.NEW_PASSWORD,
    AdminRespondToAuthChallenge: (b) => b.ChallengeResponses?.NEW_PASSWORD,
  };
  const policies = new Map<string, any>();
  async function checkPassword(poolId: string | undefined, clientId: string | undefined, password: string) {
    let pool = poolId;
    if (!pool && clientId) pool = (await cognitoClient.getAppClient(ctx, clientId))?.UserPoolId;
    if (!pool) return;
    if (!policies.has(pool)) policies.set(pool, (await call('DescribeUserPool', { UserPoolId: pool })).UserPool?.Policies?.PasswordPolicy ?? {});
    const p = policies.get(pool);
    const problems: string[] = [];
    if (password.length < (p.MinimumLength ?? 8)) problems.push('Password not long enough');
    if (p.RequireUppercase && !/[A-Z]/.test(password)) problems.push('Password must have uppercase characters');
    if (p.RequireLowercase && !/[a-z]/.test(password)) problems.push('Password must have lowercase characters');
    if (p.RequireNumbers && !/[0-9]/.test(password)) problems.push('Password must have numeric characters');
    if (p.RequireSymbols && !/[\^$*.[\]{}()?"!@#%&/\\,><':;|_~`=+-]/.test(password)) problems.push('Password must have symbol characters');
    if (problems.length) throw new CognitoError('InvalidPasswordException', `Password did not conform with policy: ${problems[0]}`);
  }

  const sendResult = (res: http.ServerResponse, out: unknown) => {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(
      JSON.stringify(out, function (this: Record<string, unknown>, k, v) {
        return this[k] instanceof Date ? Math.floor((this[k] as Date).getTime() / 1000) : v;
      }),
    );
  };
  const sendError = (res: http.ServerResponse, target: string, e: unknown) => {
    const err = e as { code?: string; message?: string };
    const known = e instanceof CognitoError;
    let type = known ? err.code : 'InternalErrorException';
    let message = err.message;
    // Real pools (PreventUserExistenceErrors on) answer a wrong password or an unknown user at
    // sign-in with NotAuthorizedException "Incorrect username or password."; cognito-local does not.
    if (/^(Admin)?InitiateAuth$/.test(target) && (type === 'InvalidPasswordException' || type === 'UserNotFoundException')) {
      type = 'NotAuthorizedException';
      message = 'Incorrect username or password.';
    }
    if (!known) opts.log('cognito', `!!! ${target}: ${(e as Error).stack ?? e}`);
    res.writeHead(known ? 400 : 500, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ __type: type, message }));
  };

  /**
   * What a real pool does against guessing and cognito-local does not (issue 16 §4, §5): after five
   * wrong passwords an account is locked for 1 s, doubling with each further failure up to 15
   * minutes (also for the right password meanwhile); after five wrong reset codes the code is dead
   * until a new one is asked for.
   */
  const signInFailures = new Map<string, { count: number; lockedUntil: number }>();
  /** Global sign-outs: refresh tokens of sign-ins before this moment (epoch s) are revoked, per e-mail. */
  const revokedBefore = new Map<string, number>();
  const assertNotRevoked = (refreshToken: string) => {
    const claims = jwt.decode(refreshToken) as { email?: unknown; auth_time?: unknown; iat?: unknown } | null;
    const before = typeof claims?.email === 'string' ? revokedBefore.get(claims.email.toLowerCase()) : undefined;
    const signedInAt = Number(claims?.auth_time ?? claims?.iat ?? 0);
    // Second precision: a sign-in in the same second as the sign-out is kept (it may be the new one).
    if (before !== undefined && signedInAt < before) throw new CognitoError('NotAuthorizedException', 'Refresh Token has been revoked');
  };
  const codeFailures = new Map<string, number>();
  const MAX_WRONG = 5;
  const userOf = (b: any) => String(b.Username ?? b.AuthParameters?.USERNAME ?? '').trim().toLowerCase();
  const isPasswordFlow = (b: any) => /^(ADMIN_)?USER_PASSWORD_AUTH$/.test(String(b.AuthFlow ?? ''));
  async function guarded(target: string, body: any): Promise<unknown> {
    const user = userOf(body);
    if (/^(Admin)?InitiateAuth$/.test(target) && isPasswordFlow(body)) {
      const f = signInFailures.get(user);
      if (f && f.lockedUntil > Date.now()) throw new CognitoError('NotAuthorizedException', 'Password attempts exceeded');
      try {
        const out = await call(target, body);
        signInFailures.delete(user);
        return out;
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'InvalidPasswordException' || code === 'NotAuthorizedException' || code === 'UserNotFoundException') {
          const count = (f?.count ?? 0) + 1;
          const lockedUntil = count >= MAX_WRONG ? Date.now() + Math.min(2 ** (count - MAX_WRONG), 900) * 1000 : 0;
          signInFailures.set(user, { count, lockedUntil });
        }
        throw e;
      }
    }
    if (target === 'ForgotPassword') codeFailures.delete(user);
    if (target === 'AdminUserGlobalSignOut') {
      // cognito-local has no global sign-out: the user must exist, then older sign-ins are not renewed.
      const found = await call('AdminGetUser', { UserPoolId: body.UserPoolId, Username: body.Username });
      const email = String(found.UserAttributes?.find((a: { Name: string }) => a.Name === 'email')?.Value ?? user).toLowerCase();
      revokedBefore.set(email, Math.floor(Date.now() / 1000));
      return {};
    }
    if (target === 'ConfirmForgotPassword') {
      if ((codeFailures.get(user) ?? 0) >= MAX_WRONG) throw new CognitoError('LimitExceededException', 'Attempt limit exceeded, please try after some time.');
      try {
        const out = await call(target, body);
        codeFailures.delete(user);
        signInFailures.delete(user);
        return out;
      } catch (e) {
        if ((e as { code?: string }).code === 'CodeMismatchException') codeFailures.set(user, (codeFailures.get(user) ?? 0) + 1);
        throw e;
      }
    }
    return call(target, body);
  }

  const server = http.createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const intercepted =
      target === 'GetTokensFromRefreshToken' ||
      target === 'InitiateAuth' ||
      target === 'AdminInitiateAuth' ||
      target === 'ForgotPassword' ||
      target === 'AdminUserGlobalSignOut' ||
      target in PASSWORD_FIELDS;
    if (req.method !== 'POST' || !intercepted) return app(req, res);
    res.setHeader('access-control-allow-origin', '*');
    try {
      const body = JSON.parse((await readBody(req)).toString('utf8') || '{}');
      if (target === 'GetTokensFromRefreshToken') {
        assertNotRevoked(String(body.RefreshToken ?? ''));
        const out = await redeeming.run(body.RefreshToken, () => call('InitiateAuth', {
          AuthFlow: 'REFRESH_TOKEN_AUTH',
          ClientId: body.ClientId,
          AuthParameters: { REFRESH_TOKEN: body.RefreshToken },
          ClientMetadata: body.ClientMetadata,
        }));
        // Without rotation Cognito keeps the same refresh token; hand it back so clients keep it.
        return sendResult(res, { AuthenticationResult: { ...out.AuthenticationResult, RefreshToken: body.RefreshToken } });
      }
      const password = PASSWORD_FIELDS[target]?.(body);
      if (typeof password === 'string') await checkPassword(body.UserPoolId, body.ClientId, password);
      const refreshToken = /^REFRESH_TOKEN(_AUTH)?$/.test(body.AuthFlow ?? '') ? body.AuthParameters?.REFRESH_TOKEN : undefined;
      if (typeof refreshToken === 'string') assertNotRevoked(refreshToken);
      sendResult(res, await (typeof refreshToken === 'string' ? redeeming.run(refreshToken, () => call(target, body)) : guarded(target, body)));
    } catch (e) {
      sendError(res, target, e);
    }
  });
  await listen(server, opts.port);
  const issuer = `${endpoint}/${poolId}`;
  return {
    endpoint,
    region,
    userPoolId: poolId,
    userPoolClientId: clientId,
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    stop: () => closeServer(server),
  };
}
