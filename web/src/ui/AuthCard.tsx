import type { ReactNode } from 'react';
import { Card, Heading } from '@aws-amplify/ui-react';
import { useTranslation } from 'react-i18next';

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="auth-page">
      <Card variation="elevated" className="auth-card">
        <div className="auth-brand">{t('app.name')}</div>
        <Heading level={3} marginBottom="1.25rem">
          {title}
        </Heading>
        {children}
      </Card>
    </div>
  );
}
