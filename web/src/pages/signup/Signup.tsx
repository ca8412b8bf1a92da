import { useEffect, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button, Flex, SelectField, TextField } from '@aws-amplify/ui-react';
import { signupSchema, type PublicPlan } from '@balcao/shared';
import { toastError } from '../../api/errors';
import { toast } from '../../ui/toast';
import { AuthCard, NewPasswordField } from '../../ui/AuthCard';
import { fieldError, resolver } from '../../ui/form';
import { maskPhone } from '../../ui/phone';
import { call } from '../../api/call';

interface Values {
  name: string;
  email: string;
  phone: string;
  password: string;
  planId: string;
}

const money = (v: number) => v.toLocaleString('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export default function Signup() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [plans, setPlans] = useState<PublicPlan[]>([]);
  const { register, control, handleSubmit, formState } = useForm<Values>({
    resolver: resolver<Values>(signupSchema),
    defaultValues: { name: '', email: '', phone: '', password: '', planId: '' },
  });

  useEffect(() => {
    call('GET /plans/list', { auth: false }).then(setPlans).catch(toastError);
  }, []);

  const onSubmit = handleSubmit(async (v) => {
    try {
      await call('POST /companies/cadastro', {
        body: { name: v.name, email: v.email, phone: v.phone.replace(/\D/g, ''), password: v.password, planId: Number(v.planId) },
        auth: false,
      });
      toast.success(t('signup.success'), 3000);
    } catch (e) {
      toastError(e);
    }
    // Spec 003 §2: the visitor goes to /login after the attempt either way.
    navigate('/login');
  });

  const err = formState.errors;
  return (
    <AuthCard title={t('signup.title')}>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="0.9rem">
          <TextField label={t('signup.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
          <TextField label={t('signup.email')} type="email" autoComplete="email" {...register('email')} hasError={!!err.email} errorMessage={fieldError(err.email)} />
          <Controller
            control={control}
            name="phone"
            render={({ field }) => (
              <TextField
                label={t('signup.phone')}
                type="tel"
                inputMode="numeric"
                placeholder="(99) 99999-9999"
                name={field.name}
                ref={field.ref}
                value={field.value}
                onBlur={field.onBlur}
                onChange={(e) => field.onChange(maskPhone(e.target.value))}
                hasError={!!err.phone}
                errorMessage={fieldError(err.phone)}
              />
            )}
          />
          <NewPasswordField
            label={t('signup.password')}
            {...register('password')}
            hasError={!!err.password}
            errorMessage={fieldError(err.password)}
          />
          <SelectField label={t('signup.plan')} {...register('planId')} hasError={!!err.planId} errorMessage={fieldError(err.planId)} placeholder={t('signup.choosePlan')}>
            {plans.map((p) => (
              <option key={p.id} value={p.id}>
                {t('signup.planOption', { name: p.name, users: p.users, connections: p.connections, queues: p.queues, value: money(p.value) })}
              </option>
            ))}
          </SelectField>
          <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
            {t('signup.submit')}
          </Button>
          <RouterLink to="/login" className="text-link">
            {t('signup.toLogin')}
          </RouterLink>
        </Flex>
      </form>
    </AuthCard>
  );
}
