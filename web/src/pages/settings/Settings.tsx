import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Flex, Heading, Tabs } from '@aws-amplify/ui-react';
import { isAdminProfile } from '@balcao/shared';
import { useAuth } from '../../auth/AuthContext';
import { Loading } from '../../shell/Loading';
import Options from './Options';
import { useSettings } from './useSettings';
const AsaasSetting = lazy(() => import('./AsaasSetting'));

const Companies = lazy(() => import('./Companies'));
const Plans = lazy(() => import('./Plans'));
const Helps = lazy(() => import('./Helps'));
const CompanySchedules = lazy(() => import('./CompanySchedules'));

export default function Settings() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const settings = useSettings();
  const [tab, setTab] = useState('options');
  const items = [
    {
      label: t('settings.tabOptions'),
      value: 'options',
      // The super user's payment provider key (decision 61) closes the options.
      content: (
        <>
          <Options settings={settings} />
          {user?.super && <Suspense fallback={<Loading />}><AsaasSetting /></Suspense>}
        </>
      ),
    },
  ];
  // Spec 003 §2: the company's business hours, only while the schedule type is the company's.
  if (isAdminProfile(user?.profile) && settings.value('scheduleType') === 'company') {
    items.push({ label: t('settings.tabSchedules'), value: 'schedules', content: <Suspense fallback={<Loading />}><CompanySchedules /></Suspense> });
  }
  // Companies, Plans and Help are super-user only (spec 003 §2).
  if (user?.super) {
    items.push(
      { label: t('settings.tabCompanies'), value: 'companies', content: <Suspense fallback={<Loading />}><Companies /></Suspense> },
      { label: t('settings.tabPlans'), value: 'plans', content: <Suspense fallback={<Loading />}><Plans /></Suspense> },
      { label: t('settings.tabHelps'), value: 'helps', content: <Suspense fallback={<Loading />}><Helps /></Suspense> },
    );
  }
  // A tab that went away (the schedule type changed elsewhere) leaves the Options tab showing.
  const shown = items.some((i) => i.value === tab) ? tab : 'options';
  return (
    <Flex direction="column" gap="1rem" className="page">
      <Heading level={3}>{t('settings.title')}</Heading>
      <Tabs value={shown} onValueChange={setTab} items={items} isLazy />
    </Flex>
  );
}
