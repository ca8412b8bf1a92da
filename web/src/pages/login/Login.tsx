import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Alert, Button, Flex, PasswordField, TextField } from '@aws-amplify/ui-react';
import { loginSchema } from '@balcao/shared';
import { LoginError, useAuth } from '../../auth/AuthContext';
import { errorText } from '../../api/errors';
import { AuthCard } from '../../ui/AuthCard';
import { fieldError, resolver } from '../../ui/form';

interface Values {
  email: string;
  password: string;
}

export default function Login() {
  const { t } = useTranslation();
  const { login } = useAuth();
  const [error, setError] = useState<string | null>(null);
  const { register, handleSubmit, formState } = useForm<Values>({
    resolver: resolver<Values>(loginSchema),
    defaultValues: { email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (v) => {
    setError(null);
    try {
      await login(v.email, v.password);
    } catch (e) {
      setError(e instanceof LoginError ? e.message : errorText(e));
    }
  });

  return (
    <AuthCard title={t('login.title')}>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="1rem">
          {error && (
            <Alert variation="error" role="alert" data-testid="login-error">
              {error}
            </Alert>
          )}
          <TextField
            label={t('login.email')}
            type="email"
            autoComplete="email"
            autoFocus
            {...register('email')}
            hasError={!!formState.errors.email}
            errorMessage={fieldError(formState.errors.email)}
          />
          <PasswordField
            label={t('login.password')}
            autoComplete="current-password"
            showPasswordButtonLabel={t('common.showPassword')}
            {...register('password')}
            hasError={!!formState.errors.password}
            errorMessage={fieldError(formState.errors.password)}
          />
          <Button type="submit" variation="primary" isLoading={formState.isSubmitting} loadingText={t('login.submit')}>
            {t('login.submit')}
          </Button>
          <Flex justifyContent="space-between" wrap="wrap" gap="0.5rem">
            <RouterLink to="/forgetpsw" className="text-link">
              {t('login.forgot')}
            </RouterLink>
            <RouterLink to="/signup" className="text-link">
              {t('login.signup')}
            </RouterLink>
          </Flex>
        </Flex>
      </form>
    </AuthCard>
  );
}
