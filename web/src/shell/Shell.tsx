import { lazy, Suspense, useEffect, useState, type ButtonHTMLAttributes } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Flex, SelectField, SliderField, Text, View } from '@aws-amplify/ui-react';
import { DRAWER_OPEN_ABOVE_PX, DRAWER_TEMPORARY_BELOW_PX, isAdminProfile, LANGUAGES, type Language } from '@balcao/shared';
import { useAuth } from '../auth/AuthContext';
import { setLanguage } from '../i18n';
import { useDates } from '../ui/dates';
import { Icon } from '../ui/icons';
import { storedNumber, useMediaQuery } from '../ui/hooks';
import { useColorMode } from './theme';
import { visibleSections, type MenuItem } from './menu';
import { useUnreadTitle } from './unread';
import { useConnectionAlert } from '../pages/connections/live';
import { NotificationsBell } from './Notifications';
import { ChatPopover } from './ChatPopover';
import { useUnreadChats } from '../pages/chats/store';
import { AnnouncementsPopover } from './AnnouncementsPopover';

const UserDialog = lazy(() => import('../pages/users/UserDialog'));
const loadUserMenu = () => import('./UserMenu');
const UserMenu = lazy(loadUserMenu);

export default function Shell() {
  const { t, i18n } = useTranslation();
  const { user, logout } = useAuth();
  const dates = useDates();
  const { mode, toggle } = useColorMode();
  const location = useLocation();
  const temporary = useMediaQuery(`(max-width: ${DRAWER_TEMPORARY_BELOW_PX - 1}px)`);
  const [open, setOpen] = useState(() => window.innerWidth > DRAWER_OPEN_ABOVE_PX);
  const [volume, setVolume] = useState(() => Math.min(1, Math.max(0, storedNumber('volume', 1))));
  const [profileOpen, setProfileOpen] = useState(false);
  // The menu's code is fetched when first wanted (pointer over the button starts it early).
  const [menuMounted, setMenuMounted] = useState(false);
  useUnreadTitle(t('app.name'));
  const connectionAlert = useConnectionAlert(isAdminProfile(user?.profile));
  const unreadChats = useUnreadChats(user?.id);

  // The overlay drawer closes after navigating; the docked one keeps its state.
  useEffect(() => {
    if (temporary) setOpen(false);
  }, [location.pathname, temporary]);

  if (!user) return null;
  const admin = isAdminProfile(user.profile);
  const sections = visibleSections(user);
  const due = user.company?.dueDate;

  const link = (i: MenuItem) => (
    <NavLink key={i.to} to={i.to} end={i.to === '/'} className={({ isActive }) => `nav-item${isActive ? ' active' : ''}`}>
      <Icon name={i.icon} />
      <span className="nav-label">{t(i.label)}</span>
      {i.badge === 'connections' && connectionAlert && (
        <span className="nav-badge" data-testid="connections-badge" role="img" aria-label={t('connections.alert')} title={t('connections.alert')} />
      )}
      {i.badge === 'chats' && unreadChats > 0 && <span className="nav-dot" data-testid="chats-unread-dot" role="img" aria-label={t('chats.unreadDot')} title={t('chats.unreadDot')} />}
    </NavLink>
  );

  const menuButton = (handlers: Pick<ButtonHTMLAttributes<HTMLButtonElement>, 'onPointerEnter' | 'onFocus' | 'onClick'> = {}) => (
    <button type="button" className="icon-btn" aria-label={t('shell.userMenu')} aria-haspopup="menu" {...handlers}>
      <Icon name="account" />
    </button>
  );

  return (
    <div className={`shell${open ? ' drawer-open' : ''}${temporary ? ' drawer-temporary' : ''}`}>
      <header className="topbar">
        <button type="button" className="icon-btn" aria-label={t('shell.toggleMenu')} aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          <Icon name="menu" />
        </button>
        <div className="greeting">
          <Text as="span" className="greeting-text" data-testid="greeting">
            {t('shell.greeting', { name: user.name, company: user.company?.name ?? '', id: user.companyId })}
          </Text>
          {admin && due && (
            <Text as="span" className="active-until" data-testid="active-until">
              {t('shell.activeUntil', { date: dates.day(due) })}
            </Text>
          )}
        </div>
        <Flex className="topbar-controls" alignItems="center" gap="0.25rem">
          <div className="volume" title={t('shell.volume')}>
            <Icon name="volume" size={20} />
            <SliderField
              label={t('shell.volume')}
              labelHidden
              min={0}
              max={1}
              step={0.1}
              value={volume}
              isValueHidden
              onChange={(v) => {
                setVolume(v);
                localStorage.setItem('volume', String(v));
              }}
            />
          </div>
          <SelectField
            label={t('shell.language')}
            labelHidden
            size="small"
            className="lang-select"
            value={i18n.language}
            onChange={(e) => setLanguage(e.target.value as Language)}
          >
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {l.toUpperCase()}
              </option>
            ))}
          </SelectField>
          <NotificationsBell />
          {user.company?.plan?.useInternalChat && <ChatPopover />}
          <AnnouncementsPopover />
          <button type="button" className="icon-btn" aria-label={t('shell.theme')} data-testid="theme-toggle" onClick={toggle}>
            <Icon name={mode === 'dark' ? 'sun' : 'moon'} />
          </button>
          {menuMounted ? (
            <Suspense fallback={menuButton()}>
              <UserMenu trigger={menuButton()} onProfile={() => setProfileOpen(true)} onLogout={() => void logout()} />
            </Suspense>
          ) : (
            menuButton({ onPointerEnter: () => void loadUserMenu(), onFocus: () => void loadUserMenu(), onClick: () => setMenuMounted(true) })
          )}
        </Flex>
      </header>
      {temporary && open && <div className="drawer-backdrop" onClick={() => setOpen(false)} />}
      <nav className="drawer" aria-label="menu">
        <div className="drawer-brand">
          <div>
            <span className="brand">{t('app.name')}</span>
            {/* The top bar has no room for the date on phones: the drawer carries it there. */}
            {temporary && admin && due && <div className="drawer-due">{t('shell.activeUntil', { date: dates.day(due) })}</div>}
          </div>
          {!temporary && (
            <button type="button" className="icon-btn" aria-label={t('shell.toggleMenu')} onClick={() => setOpen(false)}>
              <Icon name="chevronLeft" />
            </button>
          )}
        </div>
        {sections.map(({ section, items }) => (
          <div key={section.id} className="nav-list" data-testid={section.testId}>
            {section.title && <div className="nav-section">{t(section.title)}</div>}
            {items.map(link)}
          </div>
        ))}
      </nav>
      <main className="content">
        <View className="content-inner">
          <Outlet />
        </View>
      </main>
      {profileOpen && (
        <Suspense fallback={null}>
          <UserDialog open userId={user.id} onClose={() => setProfileOpen(false)} />
        </Suspense>
      )}
    </div>
  );
}
