import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, CheckboxField, Flex, TextField } from '@aws-amplify/ui-react';
import { CHAT_TITLE_MAX, type ApiChat } from '@balcao/shared';
import { chatsApi } from '../../api/chats';
import { toastError } from '../../api/errors';
import { usersApi, type UserRef } from '../../api/users';
import { Modal } from '../../ui/Modal';
import { toast } from '../../ui/toast';

/**
 * The new-chat and edit dialog (spec 002 §2, §5): a title and the users to talk with. The spec's
 * alerts come before any call: a title, and at least one user.
 */
export function ChatDialog({ chat, meId, onClose, onSaved }: { chat: ApiChat | null; meId: number; onClose: () => void; onSaved: (c: ApiChat) => void }) {
  const { t } = useTranslation();
  const [title, setTitle] = useState(chat?.title ?? '');
  const [selected, setSelected] = useState<number[]>(() => (chat ? chat.users.map((u) => u.userId).filter((id) => id !== meId) : []));
  const [users, setUsers] = useState<UserRef[]>([]);
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    usersApi
      .sorted()
      .then((list) => live && setUsers(list.filter((u) => u.id !== meId)))
      .catch(toastError);
    return () => {
      live = false;
    };
  }, [meId]);

  const shown = useMemo(() => {
    const term = filter.trim().toLowerCase();
    return term ? users.filter((u) => u.name.toLowerCase().includes(term) || selected.includes(u.id)) : users;
  }, [users, filter, selected]);

  const save = async () => {
    if (!title.trim()) return toast.error(t('chats.titleRequired'));
    if (selected.length === 0) return toast.error(t('chats.usersRequired'));
    setBusy(true);
    try {
      const saved = chat ? await chatsApi.update(chat.id, { title: title.trim(), users: selected }) : await chatsApi.create({ title: title.trim(), users: selected, isGroup: selected.length > 1 });
      toast.success(t('chats.saved'));
      onSaved(saved);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open title={chat ? t('chats.edit') : t('chats.new')} onClose={onClose}>
      <form
        data-testid="chat-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Flex direction="column" gap="0.75rem">
          <TextField label={t('chats.titleLabel')} name="title" value={title} maxLength={CHAT_TITLE_MAX} onChange={(e) => setTitle(e.target.value)} autoFocus />
          {/* A pair keeps its two people: only a group's members change. */}
          {(!chat || chat.isGroup) && (
            <fieldset className="chat-users">
              <legend>{t('chats.users')}</legend>
              <TextField label={t('chats.filterUsers')} labelHidden placeholder={t('chats.filterUsers')} size="small" value={filter} onChange={(e) => setFilter(e.target.value)} />
              <div className="chat-users-list" data-testid="chat-dialog-users">
                {shown.map((u) => (
                  <CheckboxField
                    key={u.id}
                    label={u.name}
                    name={`user-${u.id}`}
                    value={String(u.id)}
                    checked={selected.includes(u.id)}
                    onChange={(e) => setSelected((s) => (e.target.checked ? [...s, u.id] : s.filter((x) => x !== u.id)))}
                  />
                ))}
              </div>
            </fieldset>
          )}
        </Flex>
        <Flex justifyContent="flex-end" marginTop="1.25rem" gap="0.5rem">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variation="primary" isLoading={busy} data-testid="chat-dialog-save">
            {t('common.save')}
          </Button>
        </Flex>
      </form>
    </Modal>
  );
}
