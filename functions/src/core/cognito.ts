import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminSetUserPasswordCommand,
  AdminUserGlobalSignOutCommand,
  AdminUpdateUserAttributesCommand,
  AdminGetUserCommand,
  ForgotPasswordCommand,
  ConfirmForgotPasswordCommand,
  InitiateAuthCommand,
  UserNotFoundException,
  UsernameExistsException,
  InvalidPasswordException,
  NotAuthorizedException,
  CodeMismatchException,
  ExpiredCodeException,
  LimitExceededException,
} from '@aws-sdk/client-cognito-identity-provider';
import { AppError, MSG } from '@balcao/shared';
import { cognitoClient } from './aws.js';
import { env } from './env.js';

/** The identity provider adapter: the table stays the source of truth for who may do what. */
export const identityProvider = {
  /** Creates a confirmed user with a permanent password; returns the Cognito `sub`. */
  async createUser(email: string, password: string): Promise<string> {
    try {
      const out = await cognitoClient().send(
        new AdminCreateUserCommand({
          UserPoolId: env.userPoolId,
          Username: email,
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
          ],
        }),
      );
      await this.setPassword(email, password);
      const sub = out.User?.Attributes?.find((a) => a.Name === 'sub')?.Value;
      if (!sub) throw new Error('Cognito did not return a sub');
      return sub;
    } catch (err) {
      if (err instanceof UsernameExistsException) throw new AppError(409, 'ERR_EMAIL_ALREADY_EXISTS', { fields: [{ field: 'email', message: 'ERR_EMAIL_ALREADY_EXISTS' }] });
      throw err;
    }
  },

  async setPassword(email: string, password: string): Promise<void> {
    try {
      await cognitoClient().send(
        new AdminSetUserPasswordCommand({ UserPoolId: env.userPoolId, Username: email, Password: password, Permanent: true }),
      );
    } catch (err) {
      if (err instanceof InvalidPasswordException) {
        throw new AppError(400, 'ERR_VALIDATION', { message: MSG.passwordPolicy, fields: [{ field: 'password', message: MSG.passwordPolicy }] });
      }
      throw err;
    }
  },

  async changeEmail(oldEmail: string, newEmail: string): Promise<void> {
    await cognitoClient().send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: env.userPoolId,
        Username: oldEmail,
        UserAttributes: [
          { Name: 'email', Value: newEmail },
          { Name: 'email_verified', Value: 'true' },
        ],
      }),
    );
  },

  async deleteUser(email: string): Promise<void> {
    try {
      await cognitoClient().send(new AdminDeleteUserCommand({ UserPoolId: env.userPoolId, Username: email }));
    } catch (err) {
      if (!(err instanceof UserNotFoundException)) throw err;
    }
  },

  async exists(email: string): Promise<boolean> {
    try {
      await cognitoClient().send(new AdminGetUserCommand({ UserPoolId: env.userPoolId, Username: email }));
      return true;
    } catch (err) {
      if (err instanceof UserNotFoundException) return false;
      throw err;
    }
  },

  /** USER_PASSWORD_AUTH for API clients that sign in through POST /auth/login with credentials. */
  async passwordSignIn(email: string, password: string) {
    try {
      const out = await cognitoClient().send(
        new InitiateAuthCommand({
          AuthFlow: 'USER_PASSWORD_AUTH',
          ClientId: env.userPoolClientId,
          AuthParameters: { USERNAME: email, PASSWORD: password },
        }),
      );
      const r = out.AuthenticationResult;
      if (!r?.AccessToken) throw new AppError(401, 'ERR_INVALID_CREDENTIALS', { message: 'Email ou senha incorreta!' });
      return { accessToken: r.AccessToken, idToken: r.IdToken, refreshToken: r.RefreshToken, expiresIn: r.ExpiresIn };
    } catch (err) {
      // Cognito locks an account after repeated wrong passwords (the local stand-in too).
      if (err instanceof NotAuthorizedException && /attempts exceeded/i.test(err.message)) {
        throw new AppError(429, 'ERR_RATE_LIMITED', { message: 'Muitas tentativas. Aguarde e tente novamente.' });
      }
      // The local stand-in answers a wrong password with InvalidPasswordException; Cognito with NotAuthorized.
      if (err instanceof NotAuthorizedException || err instanceof UserNotFoundException || err instanceof InvalidPasswordException) {
        throw new AppError(401, 'ERR_INVALID_CREDENTIALS', { message: 'Email ou senha incorreta!' });
      }
      throw err;
    }
  },

  async forgotPassword(email: string): Promise<void> {
    try {
      await cognitoClient().send(new ForgotPasswordCommand({ ClientId: env.userPoolClientId, Username: email }));
    } catch (err) {
      if (err instanceof UserNotFoundException) throw new AppError(404, 'ERR_NO_USER_FOUND', { message: 'Email não encontrado' });
      if (err instanceof LimitExceededException) throw new AppError(429, 'ERR_RATE_LIMITED');
      throw err;
    }
  },

  async confirmForgotPassword(email: string, code: string, newPassword: string): Promise<void> {
    try {
      await cognitoClient().send(
        new ConfirmForgotPasswordCommand({ ClientId: env.userPoolClientId, Username: email, ConfirmationCode: code, Password: newPassword }),
      );
    } catch (err) {
      if (err instanceof CodeMismatchException || err instanceof ExpiredCodeException) {
        throw new AppError(400, 'ERR_VALIDATION', { message: 'Código inválido ou expirado', fields: [{ field: 'token', message: 'Código inválido ou expirado' }] });
      }
      if (err instanceof InvalidPasswordException) {
        throw new AppError(400, 'ERR_VALIDATION', { message: MSG.passwordPolicy, fields: [{ field: 'newPassword', message: MSG.passwordPolicy }] });
      }
      if (err instanceof UserNotFoundException) throw new AppError(404, 'ERR_NO_USER_FOUND', { message: 'Email não encontrado' });
      // Too many wrong codes: Cognito kills the code; a new one must be asked for.
      if (err instanceof LimitExceededException) {
        throw new AppError(429, 'ERR_RATE_LIMITED', { message: 'Muitas tentativas com código errado. Peça um novo código.', fields: [{ field: 'token', message: 'Peça um novo código' }] });
      }
      throw err;
    }
  },

  /** Revokes every refresh token of the user (Cognito's global sign-out): no old sign-in is renewed. */
  async globalSignOut(email: string): Promise<void> {
    try {
      await cognitoClient().send(new AdminUserGlobalSignOutCommand({ UserPoolId: env.userPoolId, Username: email }));
    } catch (err) {
      if (err instanceof UserNotFoundException) return;
      throw err;
    }
  },
};
