import { Button } from '@aws-amplify/ui-react';
import { useTranslation } from 'react-i18next';

/** The loading state of routes and lazy parts (its own module: App shows it before the Shell chunk is in). */
export function Loading() {
  const { t } = useTranslation();
  return (
    <div className="loading" role="status">
      <Button isLoading variation="link" loadingText={t('common.loading')} />
    </div>
  );
}
