import { createRouter, noContent } from '../../core/http.js';
import { bearer } from '../../core/jwt.js';
import { currentUser, forgotPassword, login, logout, resetPassword } from '../../services/auth.js';
import { reply } from '../../core/http.js';
import { clientIp } from '../../services/rate-limits.js';

export const handler = createRouter('auth', {
  'POST /auth/login': (req) => login(req.body, bearer(req.headers), clientIp(req.event)),
  // Tokens are refreshed by Amplify against Cognito; this answers the current user for the new token.
  'POST /auth/refresh_token': async (req) => ({ user: await currentUser(req.identity.user) }),
  'GET /auth/me': (req) => currentUser(req.identity.user),
  'DELETE /auth/logout': async (req) => {
    await logout(req.identity);
    return noContent();
  },
  'POST /forgetpassword/{email}': async (req) => reply(200, await forgotPassword(req.params.email, clientIp(req.event))),
  // The spec's path form (old clients; the gateway logs only its route key) and the body form.
  'POST /resetpasswords/{email}/{token}/{newPassword}': async (req) =>
    reply(200, await resetPassword({ ...req.params, confirmPassword: req.params.newPassword }, clientIp(req.event))),
  'POST /resetpasswords': async (req) => reply(200, await resetPassword(req.body, clientIp(req.event))),
});
