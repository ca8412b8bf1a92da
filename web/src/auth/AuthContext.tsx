import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import { companyEvent, companyTimeZone, dateFormatter, shouldWarnDueDate, type Plan, type SettingItem, type User } from '@balcao/shared';
import { api, ApiError, setUnauthorizedHandler } from '../api/http';
import { realtime } from '../api/realtime';
import i18n from '../i18n';
import { toast } from '../ui/toast';
import { call } from '../api/call';

interface AuthState {
  user: User | null;
  loading: boolean;
  login: (email: string, password: string) => Promise<void>;
  logout: () => Promise<void>;
  setUser: (u: User) => void;
  /** One of the company's settings changed here (the `settings` event brings the others' changes). */
  setSetting: (s: SettingItem) => void;
}

const AuthContext = createContext<AuthState>(null as never);
export const useAuth = () => useContext(AuthContext);

/** The user with one of the company's settings changed (the settings travel with the user). */
const withSetting = (u: User | null, setting: SettingItem): User | null =>
  u?.company ? { ...u, company: { ...u.company, settings: [...(u.company.settings ?? []).filter((x) => x.key !== setting.key), setting] } } : u;

/** The id of this browser's session as the API names it: origin_jti when present, else auth_time. */
async function currentSessionId(): Promise<string | undefined> {
  const s = await fetchAuthSession().catch(() => undefined);
  const p = s?.tokens?.accessToken?.payload as Record<string, unknown> | undefined;
  if (!p) return undefined;
  if (typeof p.origin_jti === 'string') return p.origin_jti;
  return p.auth_time !== undefined ? String(p.auth_time) : undefined;
}

export class LoginError extends Error {}

let leaving = false;
/** Spec 000 §4: 'Sua conta foi acessada em outro computador.', storage cleared, reload after 1 s (once). */
function leaveForAnotherLogin() {
  if (leaving) return;
  leaving = true;
  realtime.stop();
  toast.error(i18n.t('shell.anotherLogin'));
  localStorage.clear();
  setTimeout(() => window.location.reload(), 1000);
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [loading, setLoading] = useState(true);

  const clear = useCallback(async () => {
    realtime.stop();
    await signOut().catch(() => {});
    setUser(null);
  }, []);

  useEffect(() => {
    // A call refused because another sign-in took the session over tells the user the same thing
    // as the auth event (whichever comes first): the event can lose the race to any request.
    setUnauthorizedHandler((code) => (code === 'ERR_SESSION_EXPIRED' ? leaveForAnotherLogin() : void clear()));
    (async () => {
      try {
        const s = await fetchAuthSession();
        if (s.tokens?.accessToken) setUser(await call('GET /auth/me'));
      } catch {
        await signOut().catch(() => {});
      } finally {
        setLoading(false);
      }
    })();
  }, [clear]);

  // Plan flags (and the company's campaigns switch) drive the menu; refresh them from the company
  // record once per session (spec 000 §7 listPlan).
  useEffect(() => {
    if (!user?.companyId) return;
    api
      .get<{ plan?: Plan; campaignsEnabled?: boolean }>(`/companies/listPlan/${user.companyId}`)
      .then(
        (c) =>
          c.plan &&
          setUser((u) =>
            u && u.company
              ? { ...u, company: { ...u.company, plan: c.plan, ...(typeof c.campaignsEnabled === 'boolean' ? { campaignsEnabled: c.campaignsEnabled } : {}) } }
              : u,
          ),
      )
      .catch(() => {});
  }, [user?.id, user?.companyId]);

  // Realtime lives as long as the signed-in session; it also carries the single-session kick-out.
  useEffect(() => {
    if (!user) return;
    realtime.start();
    const offAuth = realtime.on(companyEvent(user.companyId, 'auth'), async (data) => {
      if (data?.action !== 'anotherLogin' || data.user?.id !== user.id) return;
      const mine = await currentSessionId();
      if (data.session?.id !== undefined && String(data.session.id) === mine) return;
      leaveForAnotherLogin();
    });
    const offUser = realtime.on(companyEvent(user.companyId, 'user'), (data) => {
      if (data?.action === 'update' && data.user?.id === user.id)
        // A presence event read before an edit can arrive after it: it must not put the old values back.
        setUser((u) =>
          u && !(data.user.updatedAt && u.updatedAt && data.user.updatedAt < u.updatedAt)
            ? { ...u, ...data.user, company: data.user.company ?? u.company }
            : u,
        );
    });
    // The company's settings travel with the user: a new time zone moves every date shown at once.
    const offSettings = realtime.on(companyEvent(user.companyId, 'settings'), (data) => {
      const s = data?.setting as { key?: string; value?: unknown } | undefined;
      if (!s?.key) return;
      const setting = { key: s.key, value: String(s.value) };
      setUser((u) => withSetting(u, setting));
    });
    return () => {
      offAuth();
      offUser();
      offSettings();
    };
  }, [user?.id, user?.companyId]);

  useEffect(() => () => realtime.stop(), []);

  const login = useCallback(async (email: string, password: string) => {
    await signOut().catch(() => {});
    try {
      const res = await signIn({ username: email.trim().toLowerCase(), password, options: { authFlowType: 'USER_PASSWORD_AUTH' } });
      if (!res.isSignedIn) throw new LoginError(i18n.t('login.invalid'));
    } catch (e) {
      if (e instanceof LoginError) throw e;
      const { name, message } = e as { name?: string; message?: string };
      // Cognito locks an account for a while after repeated wrong passwords (issue 16 §4).
      if (name === 'NotAuthorizedException' && /attempts exceeded/i.test(message ?? '')) throw new LoginError(i18n.t('login.locked'));
      if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') throw new LoginError(i18n.t('login.invalid'));
      throw e;
    }
    let me: User;
    try {
      const r = await call('POST /auth/login', { body: {}, quiet401: true });
      me = r.user;
    } catch (e) {
      await signOut().catch(() => {});
      if (e instanceof ApiError && e.body.message && ['ERR_COMPANY_BLOCKED', 'ERR_SUBSCRIPTION_EXPIRED'].includes(e.code ?? ''))
        throw new LoginError(e.body.message);
      throw e;
    }
    setUser(me);
    const due = me.company?.dueDate;
    if (shouldWarnDueDate(due) && due)
      toast.warning(i18n.t('login.dueWarning', { date: dateFormatter(companyTimeZone(me), i18n.language).day(due) }), 6000);
  }, []);

  const logout = useCallback(async () => {
    await call('DELETE /auth/logout').catch(() => {});
    await clear();
  }, [clear]);

  const setSetting = useCallback((s: SettingItem) => setUser((u) => withSetting(u, s)), []);
  const value = useMemo(() => ({ user, loading, login, logout, setUser, setSetting }), [user, loading, login, logout, setSetting]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
