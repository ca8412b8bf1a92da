import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Text, TextField } from '@aws-amplify/ui-react';
import { forgotPasswordEmailSchema, resetPasswordSchema } from '@balcao/shared';
import { ApiError } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { toast } from '../../ui/toast';
import { AuthCard, AuthLinks, NewPasswordField } from '../../ui/AuthCard';
import { fieldError, resolver } from '../../ui/form';
import { call } from '../../api/call';

interface Step1 {
  email: string;
}
interface Step2 {
  email: string;
  token: string;
  newPassword: string;
  confirmPassword: string;
}

export default function ForgetPassword() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [email, setEmail] = useState<string | null>(null);
  const step1 = useForm<Step1>({ resolver: resolver<Step1>(forgotPasswordEmailSchema), defaultValues: { email: '' } });
  const step2 = useForm<Step2>({
    resolver: resolver<Step2>(resetPasswordSchema),
    defaultValues: { email: '', token: '', newPassword: '', confirmPassword: '' },
  });

  const sendEmail = step1.handleSubmit(async (v) => {
    const addr = v.email.trim().toLowerCase();
    try {
      await call('POST /forgetpassword/{email}', { params: { email: addr }, auth: false });
      toast.success(t('forgot.emailSent'), 3000);
      step2.reset({ email: addr, token: '', newPassword: '', confirmPassword: '' });
      setEmail(addr);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) step1.setError('email', { type: 'server', message: t('forgot.emailNotFound') });
      else toastError(e);
    }
  });

  const reset = step2.handleSubmit(async (v) => {
    try {
      // Through the API (the new password in the body, never in a URL): it also ends every session
      // signed in with the old password (issue 16 §5).
      await call('POST /resetpasswords', { body: { ...v, token: v.token.trim() }, auth: false });
      toast.success(t('forgot.success'), 3000);
      navigate('/login');
    } catch (e) {
      // Five wrong codes kill the code: a new one must be asked for.
      if (e instanceof ApiError && e.status === 429) step2.setError('token', { type: 'server', message: t('forgot.codeLocked') });
      else if (!applyFieldErrors(e, step2.setError as never, ['email', 'token', 'newPassword', 'confirmPassword'])) toastError(e);
    }
  });

  const e1 = step1.formState.errors;
  const e2 = step2.formState.errors;
  return (
    <AuthCard title={t('forgot.title')}>
      {email === null ? (
        <form onSubmit={sendEmail} noValidate>
          <Flex direction="column" gap="1rem">
            <TextField label={t('forgot.email')} type="email" autoComplete="email" autoFocus {...step1.register('email')} hasError={!!e1.email} errorMessage={fieldError(e1.email)} />
            <Button type="submit" variation="primary" isLoading={step1.formState.isSubmitting}>
              {t('forgot.sendEmail')}
            </Button>
          </Flex>
        </form>
      ) : (
        <form onSubmit={reset} noValidate>
          <Flex direction="column" gap="1rem">
            <Text>{t('forgot.codeInfo', { email })}</Text>
            <TextField label={t('forgot.email')} value={email} isReadOnly name="email" />
            <TextField label={t('forgot.code')} autoComplete="one-time-code" inputMode="numeric" autoFocus {...step2.register('token')} hasError={!!e2.token} errorMessage={fieldError(e2.token)} />
            <NewPasswordField label={t('forgot.newPassword')} {...step2.register('newPassword')} hasError={!!e2.newPassword} errorMessage={fieldError(e2.newPassword)} />
            <NewPasswordField label={t('forgot.confirmPassword')} {...step2.register('confirmPassword')} hasError={!!e2.confirmPassword} errorMessage={fieldError(e2.confirmPassword)} />
            <Button type="submit" variation="primary" isLoading={step2.formState.isSubmitting}>
              {t('forgot.submit')}
            </Button>
          </Flex>
        </form>
      )}
      <AuthLinks
        links={[
          ['/login', t('forgot.toLogin')],
          ['/signup', t('forgot.toSignup')],
        ]}
        marginTop="1rem"
      />
    </AuthCard>
  );
}
