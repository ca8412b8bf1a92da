import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Card, Flex, Heading, PasswordField, type PasswordFieldProps } from '@aws-amplify/ui-react';
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

/** The links under a sign-in form to the other public pages: `[path, text]`. */
export function AuthLinks({ links, marginTop }: { links: [string, string][]; marginTop?: string }) {
  return (
    <Flex justifyContent="space-between" wrap="wrap" gap="0.5rem" marginTop={marginTop}>
      {links.map(([to, text]) => (
        <RouterLink key={to} to={to} className="text-link">
          {text}
        </RouterLink>
      ))}
    </Flex>
  );
}

/** A password being chosen (the browser offers to generate one), with the show button's label. */
export function NewPasswordField(props: Omit<PasswordFieldProps, 'autoComplete' | 'showPasswordButtonLabel'> & { ref?: unknown }) {
  const { t } = useTranslation();
  return <PasswordField autoComplete="new-password" showPasswordButtonLabel={t('common.showPassword')} {...(props as PasswordFieldProps)} />;
}
