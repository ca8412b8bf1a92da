import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Flex, Loader, SelectField, Text, TextField } from '@aws-amplify/ui-react';
import { SEARCH_DEBOUNCE_MS, type Queue } from '@balcao/shared';
import { api } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { ticketsApi } from '../../../api/tickets';
import { DialogFooter } from '../../../ui/DialogFooter';
import { Modal } from '../../../ui/Modal';
import { useBusy } from '../../../ui/useBusy';
import { useDebounced } from '../../../ui/hooks';
import type { ApiTicket } from '../types';

interface Connection {
  id: number;
  name: string;
  status?: string;
}

/** What the dialog reads of a user of `GET /users/list`. */
interface UserBrief {
  id: number;
  name: string;
}

/** Users listed at most; typing narrows to the others (a select of hundreds is no choice). */
const USERS_SHOWN = 50;

/**
 * Spec 001 §4 "Transfer": a queue (required), optionally a user and a connection. Without a user
 * the ticket goes back to pending in that queue. The user list shows the chosen queue's users (the
 * company's without a queue) at once, and what is typed narrows it (issue 14 §9, decision 36).
 */
export function TransferDialog({ ticket, open, onClose, onDone }: { ticket: ApiTicket; open: boolean; onClose: () => void; onDone: (t: ApiTicket) => void }) {
  const { t } = useTranslation();
  const [queues, setQueues] = useState<Queue[] | null>(null);
  const [connections, setConnections] = useState<Connection[]>([]);
  const [queueId, setQueueId] = useState('');
  const [whatsappId, setWhatsappId] = useState('');
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const [users, setUsers] = useState<UserBrief[]>([]);
  const [userId, setUserId] = useState('');
  const [searching, setSearching] = useState(false);
  const { busy: saving, run } = useBusy();
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
    if (!open) return;
    let live = true;
    setSearching(true);
    api
      // One more than shown tells whether there are others to type for.
      .get<UserBrief[]>('/users/list', { query: { queueId: queueId || undefined, searchParam: q || undefined, limit: USERS_SHOWN + 1 } })
      .then((list) => {
        if (!live) return;
        setUsers(list);
        // A user chosen before the queue changed may not serve the new one.
        setUserId((id) => (list.some((u) => String(u.id) === id) ? id : ''));
      })
      .catch((e) => live && toastError(e))
      .finally(() => live && setSearching(false));
    return () => {
      live = false;
    };
  }, [q, queueId, open]);

  const submit = async () => {
    if (!queueId) {
      setQueueError(true);
      return;
    }
    await run(async () => {
      const body: Record<string, unknown> = userId
        ? { queueId: Number(queueId), userId: Number(userId), status: 'open' }
        : { queueId: Number(queueId), userId: null, status: 'pending' };
      if (whatsappId && Number(whatsappId) !== ticket.whatsappId) body.whatsappId = Number(whatsappId);
      const saved = await ticketsApi.update(ticket.id, body);
      onDone(saved);
    });
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
          <SelectField
            label={t('transfer.user')}
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
            descriptiveText={users.length > USERS_SHOWN ? t('transfer.moreUsers', { count: USERS_SHOWN }) : undefined}
          >
            <option value="">{t('transfer.noUser')}</option>
            {users.slice(0, USERS_SHOWN).map((u) => (
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
        <DialogFooter onCancel={onClose} busy={saving} submitText={t('transfer.submit')} marginTop="1.25rem" />
      </form>
    </Modal>
  );
}
