import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Loader, SelectField, Text, TextField } from '@aws-amplify/ui-react';
import { MIN_USER_SEARCH_CHARS, SEARCH_DEBOUNCE_MS, type Queue, type User } from '@balcao/shared';
import { api } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { Modal } from '../../../ui/Modal';
import { useDebounced } from '../../../ui/hooks';
import type { ApiTicket } from '../types';

interface Connection {
  id: number;
  name: string;
  status?: string;
}

/**
 * Spec 001 §4 "Transfer": a queue (required), optionally a user (searched from 3 characters) and a
 * connection. Without a user the ticket goes back to pending in that queue.
 */
export function TransferDialog({ ticket, open, onClose, onDone }: { ticket: ApiTicket; open: boolean; onClose: () => void; onDone: (t: ApiTicket) => void }) {
  const { t } = useTranslation();
  const [queues, setQueues] = useState<Queue[] | null>(null);
  const [connections, setConnections] = useState<Connection[]>([]);
  const [queueId, setQueueId] = useState('');
  const [whatsappId, setWhatsappId] = useState('');
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const [users, setUsers] = useState<User[]>([]);
  const [userId, setUserId] = useState('');
  const [searching, setSearching] = useState(false);
  const [saving, setSaving] = useState(false);
  const [queueError, setQueueError] = useState(false);

  useEffect(() => {
    if (!open) return;
    setQueueId(ticket.queueId ? String(ticket.queueId) : '');
    setWhatsappId('');
    setSearch('');
    setUserId('');
    setQueueError(false);
    let live = true;
    api
      .get<Queue[]>('/queue')
      .then((r) => live && setQueues(r))
      .catch((e) => {
        if (live) setQueues([]);
        toastError(e);
      });
    api
      .get<Connection[]>('/whatsapp', { query: { session: 0 } })
      .then((r) => live && setConnections(r))
      .catch(() => live && setConnections([]));
    return () => {
      live = false;
    };
  }, [open, ticket.queueId]);

  useEffect(() => {
    if (!open || q.length < MIN_USER_SEARCH_CHARS) {
      setUsers([]);
      return;
    }
    let live = true;
    setSearching(true);
    api
      .get<{ users: User[] }>('/users', { query: { searchParam: q } })
      .then((r) => live && setUsers(r.users))
      .catch((e) => live && toastError(e))
      .finally(() => live && setSearching(false));
    return () => {
      live = false;
    };
  }, [q, open]);

  // A user outside the chosen queue cannot serve it: the list shows those of the queue first.
  const chosenQueue = Number(queueId);
  const sorted = [...users].sort((a, b) => Number(b.queues.some((x) => x.id === chosenQueue)) - Number(a.queues.some((x) => x.id === chosenQueue)));

  const submit = async () => {
    if (!queueId) {
      setQueueError(true);
      return;
    }
    setSaving(true);
    try {
      const body: Record<string, unknown> = userId
        ? { queueId: Number(queueId), userId: Number(userId), status: 'open' }
        : { queueId: Number(queueId), userId: null, status: 'pending' };
      if (whatsappId && Number(whatsappId) !== ticket.whatsappId) body.whatsappId = Number(whatsappId);
      const saved = await api.put<ApiTicket>(`/tickets/${ticket.id}`, body);
      onDone(saved);
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal open={open} title={t('transfer.title')} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Flex direction="column" gap="0.9rem">
          <SelectField
            label={t('transfer.queue')}
            value={queueId}
            onChange={(e) => {
              setQueueId(e.target.value);
              setQueueError(false);
            }}
            hasError={queueError}
            errorMessage={t('transfer.selectQueue')}
            placeholder={queues === null ? t('common.loading') : t('transfer.selectQueue')}
          >
            {(queues ?? []).map((x) => (
              <option key={x.id} value={x.id}>
                {x.name}
              </option>
            ))}
          </SelectField>
          <TextField
            label={t('transfer.userSearch')}
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setUserId('');
            }}
            descriptiveText={t('transfer.userSearchHint')}
            autoComplete="off"
          />
          <SelectField label={t('transfer.user')} value={userId} onChange={(e) => setUserId(e.target.value)} isDisabled={q.length < MIN_USER_SEARCH_CHARS}>
            <option value="">{t('transfer.noUser')}</option>
            {sorted.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </SelectField>
          {searching && <Loader />}
          {connections.length > 1 && (
            <SelectField label={t('transfer.connection')} value={whatsappId} onChange={(e) => setWhatsappId(e.target.value)}>
              <option value="">{t('transfer.sameConnection')}</option>
              {connections
                .filter((c) => c.id !== ticket.whatsappId)
                .map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
            </SelectField>
          )}
          {!userId && <Text fontSize="0.85rem" color="font.secondary">{t('transfer.noUser')}</Text>}
        </Flex>
        <Flex justifyContent="flex-end" gap="0.5rem" marginTop="1.25rem">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variation="primary" isLoading={saving}>
            {t('transfer.submit')}
          </Button>
        </Flex>
      </form>
    </Modal>
  );
}
