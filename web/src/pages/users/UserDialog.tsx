import { useEffect, useMemo, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, CheckboxField, Flex, Loader, PasswordField, SelectField, Text, TextField } from '@aws-amplify/ui-react';
import { can, DEFAULT_PROFILE, FORM_SUBMIT_DELAY_MS, PROFILES, userCreateSchema, userUpdateSchema, type Connection, type Queue, type User } from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { Avatar } from '../../ui/Avatar';
import { Modal } from '../../ui/Modal';
import { QueueChips } from '../../ui/QueueChips';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';

interface Values {
  name: string;
  email: string;
  password: string;
  profile: string;
  queueIds: number[];
  whatsappId: string;
  allTicket: 'enabled' | 'desabled';
  sendGreetingAccepted: boolean;
}

const FIELDS = ['name', 'email', 'password', 'profile', 'queueIds', 'whatsappId', 'allTicket', 'sendGreetingAccepted'] as const;

export default function UserDialog({
  open,
  userId,
  onClose,
  onSaved,
}: {
  open: boolean;
  userId?: number | null;
  onClose: () => void;
  onSaved?: (u: User) => void;
}) {
  const { t } = useTranslation();
  const { user: me, setUser } = useAuth();
  const admin = can(me?.profile, 'user-modal:editProfile');
  const editing = !!userId;
  const [loading, setLoading] = useState(editing);
  const [queues, setQueues] = useState<Queue[]>([]);
  const [connections, setConnections] = useState<Connection[] | null>(null);
  const [photo, setPhoto] = useState<File | null>(null);
  const [photoUrl, setPhotoUrl] = useState<string | null>(null);

  const { register, control, handleSubmit, reset, setError, formState, watch } = useForm<Values>({
    resolver: resolver<Values>(editing ? userUpdateSchema : userCreateSchema),
    defaultValues: {
      name: '',
      email: '',
      password: '',
      profile: DEFAULT_PROFILE,
      queueIds: [],
      whatsappId: '',
      allTicket: 'desabled',
      sendGreetingAccepted: false,
    },
  });

  useEffect(() => {
    if (!open || !admin) return;
    api.get<Queue[]>('/queue').then(setQueues).catch(() => setQueues([]));
    // The list without session data (no QR codes); if it cannot load the field stays disabled.
    api
      .get<Connection[]>('/whatsapp', { query: { session: 0 } })
      .then((list) => setConnections(Array.isArray(list) ? list : []))
      .catch(() => setConnections(null));
  }, [open, admin]);

  // The user is loaded once per opening; a late answer never overwrites what the agent already typed.
  useEffect(() => {
    if (!open || !userId) return;
    let live = true;
    setLoading(true);
    api
      .get<User>(`/users/${userId}`)
      .then((u) => {
        if (!live) return;
        reset(
          {
            name: u.name,
            email: u.email,
            password: '',
            profile: u.profile,
            queueIds: u.queues.map((q) => q.id),
            whatsappId: u.whatsappId ? String(u.whatsappId) : '',
            allTicket: u.allTicket,
            sendGreetingAccepted: !!u.sendGreetingAccepted,
          },
          { keepDirtyValues: true },
        );
        setPhotoUrl(u.photoUrl);
      })
      .catch((e) => {
        if (!live) return;
        toastError(e);
        onClose();
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // Not keyed on onClose: it is a fresh closure on every parent render and must not repeat the load.
  }, [open, userId, reset]);

  const onSubmit = handleSubmit(async (v) => {
    await delay(FORM_SUBMIT_DELAY_MS);
    const fd = new FormData();
    fd.set('name', v.name.trim());
    fd.set('email', v.email.trim().toLowerCase());
    if (v.password) fd.set('password', v.password);
    if (admin) {
      fd.set('profile', v.profile);
      fd.set('queueIds', JSON.stringify(v.queueIds));
      fd.set('whatsappId', v.whatsappId == null ? '' : String(v.whatsappId));
      fd.set('allTicket', v.allTicket);
      fd.set('sendGreetingAccepted', String(v.sendGreetingAccepted));
    }
    if (photo) fd.set('photo', photo);
    try {
      const saved = editing ? await api.put<User>(`/users/${userId}`, fd) : await api.post<User>('/users', fd);
      toast.success(t('users.saved'));
      if (me && saved.id === me.id) setUser({ ...me, ...saved, company: saved.company ?? me.company });
      onSaved?.(saved);
      onClose();
    } catch (e) {
      applyFieldErrors(e, setError as never, FIELDS);
      toastError(e);
    }
  });

  const err = formState.errors;
  const name = watch('name');
  const preview = useMemo(() => (photo ? URL.createObjectURL(photo) : null), [photo]);
  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);
  return (
    <Modal open={open} title={editing ? t('users.dialogEdit') : t('users.dialogAdd')} onClose={onClose} wide>
      {loading ? (
        <Loader variation="linear" />
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Flex direction="column" gap="0.9rem">
            <Flex gap="1rem" alignItems="center">
              <Avatar name={name || '?'} photoUrl={preview ?? photoUrl} />
              <label className="file-btn">
                {t('users.photo')}
                <input type="file" accept="image/*" onChange={(e) => setPhoto(e.target.files?.[0] ?? null)} />
              </label>
              {photo && <Text fontSize="small">{photo.name}</Text>}
            </Flex>
            <div className="form-grid">
              <TextField label={t('users.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
              <TextField label={t('users.email')} type="email" autoComplete="off" {...register('email')} hasError={!!err.email} errorMessage={fieldError(err.email)} />
              <PasswordField
                label={t('users.password')}
                autoComplete="new-password"
                descriptiveText={editing ? t('users.passwordKeep') : undefined}
                showPasswordButtonLabel={t('common.showPassword')}
                {...register('password')}
                hasError={!!err.password}
                errorMessage={fieldError(err.password)}
              />
              {admin && (
                <SelectField label={t('users.profile')} {...register('profile')} hasError={!!err.profile} errorMessage={fieldError(err.profile)}>
                  {PROFILES.map((p) => (
                    <option key={p} value={p}>
                      {t(`profiles.${p}`)}
                    </option>
                  ))}
                </SelectField>
              )}
            </div>
            {admin && (
              <>
                <fieldset className="queue-picker">
                  <legend>{t('users.queues')}</legend>
                  <Controller
                    control={control}
                    name="queueIds"
                    render={({ field }) => (
                      <QueueChips queues={queues} value={field.value} onChange={field.onChange} />
                    )}
                  />
                </fieldset>
                <div className="form-grid">
                  {/* Controlled by React alone (not through the DOM ref): the user may load before
                      the connections, and a select whose option is not there yet would lose the value. */}
                  <Controller
                    control={control}
                    name="whatsappId"
                    render={({ field }) => (
                      <SelectField
                        label={t('users.whatsapp')}
                        name={field.name}
                        value={field.value == null ? '' : String(field.value)}
                        onChange={(e) => field.onChange(e.target.value)}
                        onBlur={field.onBlur}
                        isDisabled={!connections}
                      >
                        <option value="">{t('users.noWhatsapp')}</option>
                        {[...(connections ?? [])].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR')).map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.name}
                          </option>
                        ))}
                      </SelectField>
                    )}
                  />
                  <SelectField label={t('users.allTicket')} {...register('allTicket')}>
                    <option value="enabled">{t('common.enabled')}</option>
                    <option value="desabled">{t('common.disabled')}</option>
                  </SelectField>
                </div>
                <Controller
                  control={control}
                  name="sendGreetingAccepted"
                  render={({ field }) => (
                    <CheckboxField
                      label={t('users.sendGreetingAccepted')}
                      name={field.name}
                      checked={field.value}
                      onChange={(e) => field.onChange(e.target.checked)}
                    />
                  )}
                />
              </>
            )}
            <Flex justifyContent="flex-end" gap="0.5rem" marginTop="0.5rem">
              <Button onClick={onClose}>{t('common.cancel')}</Button>
              <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
                {t('common.save')}
              </Button>
            </Flex>
          </Flex>
        </form>
      )}
    </Modal>
  );
}
