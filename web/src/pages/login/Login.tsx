import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Button, Flex, PasswordField, TextField } from '@aws-amplify/ui-react';
import { LoginError, useAuth } from '../../auth/AuthContext';
import { errorText } from '../../api/errors';
import { translateMessage } from '../../i18n';
import { AuthCard, AuthLinks } from '../../ui/AuthCard';
import { validateLogin, type LoginErrors, type LoginValues } from './validate';

/**
 * A plain controlled form (no react-hook-form/zod, see validate.ts) that behaves like the other
 * forms: validated on submit, then again field by field as the user types; focus goes to the first
 * field in error.
 */
export default function Login() {
  const { t } = useTranslation();
  const { login } = useAuth();
  const [error, setError] = useState<string | null>(null);
  const [values, setValues] = useState<LoginValues>({ email: '', password: '' });
  const [errors, setErrors] = useState<LoginErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  const change = (field: keyof LoginValues) => (e: ChangeEvent<HTMLInputElement>) => {
    const next = { ...values, [field]: e.target.value };
    setValues(next);
    if (submitted) setErrors((old) => ({ ...old, [field]: validateLogin(next).errors[field] }));
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (submitting) return;
    setSubmitted(true);
    const checked = validateLogin(values);
    setErrors(checked.errors);
    if (checked.errors.email) return emailRef.current?.focus();
    if (checked.errors.password) return passwordRef.current?.focus();
    setError(null);
    setSubmitting(true);
    try {
      await login(checked.values.email, checked.values.password);
    } catch (err) {
      setError(err instanceof LoginError ? err.message : errorText(err));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard title={t('login.title')}>
      <form onSubmit={(e) => void onSubmit(e)} noValidate>
        <Flex direction="column" gap="1rem">
          {error && (
            <Alert variation="error" role="alert" data-testid="login-error">
              {error}
            </Alert>
          )}
          <TextField
            label={t('login.email')}
            type="email"
            name="email"
            autoComplete="email"
            autoFocus
            ref={emailRef}
            value={values.email}
            onChange={change('email')}
            hasError={!!errors.email}
            errorMessage={translateMessage(errors.email)}
          />
          <PasswordField
            label={t('login.password')}
            name="password"
            autoComplete="current-password"
            showPasswordButtonLabel={t('common.showPassword')}
            ref={passwordRef}
            value={values.password}
            onChange={change('password')}
            hasError={!!errors.password}
            errorMessage={translateMessage(errors.password)}
          />
          <Button type="submit" variation="primary" isLoading={submitting} loadingText={t('login.submit')}>
            {t('login.submit')}
          </Button>
          <AuthLinks
            links={[
              ['/forgetpsw', t('login.forgot')],
              ['/signup', t('login.signup')],
            ]}
          />
        </Flex>
      </form>
    </AuthCard>
  );
}
