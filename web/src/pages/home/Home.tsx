import { lazy } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Badge, Card, Flex, Heading, Text } from '@aws-amplify/ui-react';
import { isAdminProfile } from '@balcao/shared';
import { useAuth } from '../../auth/AuthContext';
import { visibleItems } from '../../shell/menu';
import { Icon } from '../../ui/icons';

/** Admins' home is the dashboard (spec 000 §2.5), in its own chunk; everyone else gets the welcome page. */
const Dashboard = lazy(() => import('../dashboard/Dashboard'));

export default function Home() {
  const { t } = useTranslation();
  const { user } = useAuth();
  if (!user) return null;
  if (isAdminProfile(user.profile)) return <Dashboard />;
  const shortcuts = visibleItems(user).filter((i) => i.to !== '/');
  return (
    <Flex direction="column" gap="1.25rem" className="home">
      <Card variation="outlined" className="panel">
        <Heading level={3}>{t('home.title', { name: user.name })}</Heading>
        <Text marginTop="0.5rem">{t('home.subtitle', { company: user.company?.name ?? '' })}</Text>
        <Text marginTop="0.25rem" color="font.secondary">
          {t('home.profile', { profile: t(`profiles.${user.profile}`) })}
        </Text>
      </Card>
      <Card variation="outlined" className="panel">
        <Heading level={5} marginBottom="0.75rem">
          {t('home.queues')}
        </Heading>
        {user.queues.length === 0 ? (
          <Text color="font.secondary">{t('home.noQueues')}</Text>
        ) : (
          <Flex wrap="wrap" gap="0.5rem">
            {user.queues.map((q) => (
              <Badge key={q.id} style={{ background: q.color, color: '#fff' }}>
                {q.name}
              </Badge>
            ))}
          </Flex>
        )}
      </Card>
      {shortcuts.length > 0 && (
        <Card variation="outlined" className="panel">
          <Heading level={5} marginBottom="0.75rem">
            {t('home.shortcuts')}
          </Heading>
          <div className="shortcut-grid">
            {shortcuts.map((s) => (
              <RouterLink key={s.to} to={s.to} className="shortcut">
                <Icon name={s.icon} size={28} />
                <span>{t(s.label)}</span>
              </RouterLink>
            ))}
          </div>
        </Card>
      )}
    </Flex>
  );
}
