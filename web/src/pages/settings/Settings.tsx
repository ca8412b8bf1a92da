import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Flex, Heading, Tabs } from '@aws-amplify/ui-react';
import { useAuth } from '../../auth/AuthContext';
import { Loading } from '../../shell/Loading';
import Options from './Options';

const Companies = lazy(() => import('./Companies'));
const Plans = lazy(() => import('./Plans'));

export default function Settings() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const items = [{ label: t('settings.tabOptions'), value: 'options', content: <Options /> }];
  // Schedules and Help tabs arrive with their issues; Companies and Plans are super-user only.
  if (user?.super) {
    items.push(
      { label: t('settings.tabCompanies'), value: 'companies', content: <Suspense fallback={<Loading />}><Companies /></Suspense> },
      { label: t('settings.tabPlans'), value: 'plans', content: <Suspense fallback={<Loading />}><Plans /></Suspense> },
    );
  }
  return (
    <Flex direction="column" gap="1rem" className="page">
      <Heading level={3}>{t('settings.title')}</Heading>
      <Tabs defaultValue="options" items={items} isLazy />
    </Flex>
  );
}
