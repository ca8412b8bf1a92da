import { useEffect, useMemo, useState } from 'react';
import { Controller } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Flex, Text, TextField } from '@aws-amplify/ui-react';
import { can, DEFAULT_PROFILE, PROFILES, userCreateSchema, userUpdateSchema, type User } from '@balcao/shared';
import { connectionsApi } from '../../api/connections';
import { queuesApi } from '../../api/queues';
import { usersApi } from '../../api/users';
import { useAuth } from '../../auth/AuthContext';
import { NewPasswordField } from '../../ui/AuthCard';
import { Avatar } from '../../ui/Avatar';
import { EntityDialog } from '../../ui/EntityDialog';
import { choicesOf, ControlledSelect, CheckField, Select } from '../../ui/fields';
import { QueueChips } from '../../ui/QueueChips';
import { useEntityForm } from '../../ui/useEntityForm';
import { useOptions, useRecord } from '../../ui/useLoad';

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

const EMPTY: Values = { name: '', email: '', password: '', profile: DEFAULT_PROFILE, queueIds: [], whatsappId: '', allTicket: 'desabled', sendGreetingAccepted: false };

const toValues = (u: User): Values => ({
  name: u.name,
  email: u.email,
  password: '',
  profile: u.profile,
  queueIds: u.queues.map((q) => q.id),
  whatsappId: u.whatsappId ? String(u.whatsappId) : '',
  allTicket: u.allTicket,
  sendGreetingAccepted: !!u.sendGreetingAccepted,
});

/** The user form as multipart (it may carry the photo); the admin's fields only for admins. */
function toForm(v: Values, admin: boolean, photo: File | null) {
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
  return fd;
}

export default function UserDialog({ open, userId, onClose, onSaved }: { open: boolean; userId?: number | null; onClose: () => void; onSaved?: (u: User) => void }) {
  const { t } = useTranslation();
  const { user: me, setUser } = useAuth();
  const admin = can(me?.profile, 'user-modal:editProfile');
  const editing = !!userId;
  const queues = useOptions(queuesApi.all, [], { enabled: open && admin });
  // If the connections cannot load the field stays disabled.
  const connections = useOptions(connectionsApi.list, null, { enabled: open && admin });
  const [photo, setPhoto] = useState<File | null>(null);
  const [photoUrl, setPhotoUrl] = useState<string | null>(null);

  const entity = useEntityForm<Values, User>({
    schema: editing ? userUpdateSchema : userCreateSchema,
    defaultValues: EMPTY,
    save: (v) => usersApi.save(userId, toForm(v, admin, photo)),
    savedText: t('users.saved'),
    onSaved: (saved) => {
      if (me && saved.id === me.id) setUser({ ...me, ...saved, company: saved.company ?? me.company });
      onSaved?.(saved);
    },
    onClose,
  });
  const { form, field } = entity;
  const loading = useRecord(userId, usersApi.get, (u) => {
    form.reset(toValues(u), { keepDirtyValues: true });
    setPhotoUrl(u.photoUrl);
  }, onClose, open);

  const name = form.watch('name');
  const preview = useMemo(() => (photo ? URL.createObjectURL(photo) : null), [photo]);
  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);
  const sortedConnections = connections && [...connections].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
  return (
    <EntityDialog open={open} title={editing ? t('users.dialogEdit') : t('users.dialogAdd')} entity={entity} onClose={onClose} loading={loading} footerMargin="0.5rem">
      <Flex gap="1rem" alignItems="center">
        <Avatar name={name || '?'} photoUrl={preview ?? photoUrl} />
        <label className="file-btn">
          {t('users.photo')}
          <input type="file" accept="image/*" onChange={(e) => setPhoto(e.target.files?.[0] ?? null)} />
        </label>
        {photo && <Text fontSize="small">{photo.name}</Text>}
      </Flex>
      <div className="form-grid">
        <TextField label={t('users.name')} autoFocus {...field('name')} />
        <TextField label={t('users.email')} type="email" autoComplete="off" {...field('email')} />
        <NewPasswordField label={t('users.password')} descriptiveText={editing ? t('users.passwordKeep') : undefined} {...field('password')} />
        {admin && <Select label={t('users.profile')} {...field('profile')} choices={PROFILES.map((p) => ({ value: p, label: t(`profiles.${p}`) }))} />}
      </div>
      {admin && (
        <>
          <fieldset className="queue-picker">
            <legend>{t('users.queues')}</legend>
            <Controller control={form.control} name="queueIds" render={({ field: f }) => <QueueChips queues={queues} value={f.value} onChange={f.onChange} />} />
          </fieldset>
          <div className="form-grid">
            <ControlledSelect control={form.control} name="whatsappId" label={t('users.whatsapp')} empty={t('users.noWhatsapp')} choices={choicesOf(sortedConnections)} isDisabled={!connections} />
            <Select label={t('users.allTicket')} {...form.register('allTicket')} choices={[{ value: 'enabled', label: t('common.enabled') }, { value: 'desabled', label: t('common.disabled') }]} />
          </div>
          <CheckField control={form.control} name="sendGreetingAccepted" label={t('users.sendGreetingAccepted')} />
        </>
      )}
    </EntityDialog>
  );
}
