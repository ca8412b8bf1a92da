import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { companyEvent, INFINITE_SCROLL_THRESHOLD_PX, SEARCH_DEBOUNCE_MS, type User } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { Avatar } from '../../ui/Avatar';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDebounced } from '../../ui/hooks';
import { toast } from '../../ui/toast';
import UserDialog from './UserDialog';
import { RowActions, EmptyRow } from '../../ui/TableParts';

interface UsersPage {
  users: User[];
  count: number;
  hasMore: boolean;
}

/** A late event (or answer) must not put back what a newer one replaced: a slow socket can deliver the create after the edit. */
const older = (incoming: User, known: User) => !!incoming.updatedAt && !!known.updatedAt && incoming.updatedAt < known.updatedAt;

export default function Users() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim().toLowerCase(), SEARCH_DEBOUNCE_MS);
  const [users, setUsers] = useState<User[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  const [dialog, setDialog] = useState<{ userId: number | null } | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const scroller = useRef<HTMLDivElement>(null);

  // A new search starts again from page 1 with an empty list.
  useEffect(() => {
    setUsers([]);
    setPage(1);
  }, [searchParam, reloadKey]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .get<UsersPage>('/users', { query: { searchParam, pageNumber: page } })
      .then((r) => {
        if (!live) return;
        setUsers((prev) => {
          // The answer may land after newer changes this page already applied (a save, a live
          // event): for each user keep the newer version, and keep users added meanwhile.
          const known = new Map(prev.map((u) => [u.id, u]));
          const fresh = r.users.map((u) => {
            const k = known.get(u.id);
            return k && older(u, k) ? k : u;
          });
          const freshIds = new Set(fresh.map((u) => u.id));
          if (page === 1) return [...prev.filter((u) => !freshIds.has(u.id)), ...fresh];
          const seen = new Set(prev.map((u) => u.id));
          return [...prev, ...fresh.filter((u) => !seen.has(u.id))];
        });
        setHasMore(r.hasMore);
      })
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [searchParam, page, reloadKey]);

  useEffect(() => {
    if (!me) return;
    const off = realtime.on(companyEvent(me.companyId, 'user'), (data) => {
      if (data?.action === 'delete') setUsers((l) => l.filter((u) => u.id !== Number(data.userId)));
      else if (data?.user) {
        const u = data.user as User;
        setUsers((l) => (l.some((x) => x.id === u.id) ? l.map((x) => (x.id === u.id && !older(u, x) ? { ...x, ...u } : x)) : data.action === 'create' ? [u, ...l] : l));
      }
    });
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      off();
      offR();
    };
  }, [me]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el || !hasMore || loading) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < INFINITE_SCROLL_THRESHOLD_PX) setPage((p) => p + 1);
  }, [hasMore, loading]);

  // A first page shorter than the viewport never scrolls: keep loading while there is room.
  useEffect(() => {
    const el = scroller.current;
    if (el && !loading && hasMore && el.scrollHeight <= el.clientHeight + INFINITE_SCROLL_THRESHOLD_PX) setPage((p) => p + 1);
  }, [users, loading, hasMore]);

  const remove = async (u: User) => {
    try {
      await api.del(`/users/${u.id}`);
      setUsers((l) => l.filter((x) => x.id !== u.id));
      toast.success(t('users.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  const upsert = (u: User) =>
    setUsers((l) => (l.some((x) => x.id === u.id) ? l.map((x) => (x.id === u.id && !older(u, x) ? u : x)) : [u, ...l]));

  return (
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('users.title')}</Heading>
        <Flex gap="0.5rem" alignItems="center" wrap="wrap">
          <TextField
            label={t('common.search')}
            labelHidden
            placeholder={t('users.searchPlaceholder')}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          <Button variation="primary" onClick={() => setDialog({ userId: null })}>
            {t('users.add')}
          </Button>
        </Flex>
      </Flex>
      <div className="table-scroll" ref={scroller} onScroll={onScroll} data-testid="users-scroll">
        <Table highlightOnHover size="small" className="data-table">
          <TableHead>
            <TableRow>
              <TableCell as="th">{t('users.avatar')}</TableCell>
              <TableCell as="th">{t('users.id')}</TableCell>
              <TableCell as="th">{t('users.name')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('users.email')}</TableCell>
              <TableCell as="th">{t('users.profile')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {users.map((u) => (
              <TableRow key={u.id} data-testid={`user-row-${u.id}`}>
                <TableCell>
                  <Avatar name={u.name} photoUrl={u.photoUrl} online={!!u.online} />
                </TableCell>
                <TableCell>{u.id}</TableCell>
                <TableCell>{u.name}</TableCell>
                <TableCell className="hide-narrow">{u.email}</TableCell>
                <TableCell>{t(`profiles.${u.profile}`, { defaultValue: u.profile })}</TableCell>
                <RowActions name={u.name} onEdit={() => setDialog({ userId: u.id })} onDelete={() => setDeleting(u)} />
              </TableRow>
            ))}
            <EmptyRow show={!loading && users.length === 0} colSpan={6} />
          </TableBody>
        </Table>
        {loading && <Loader variation="linear" />}
      </div>
      {dialog && <UserDialog open userId={dialog.userId} onClose={() => setDialog(null)} onSaved={upsert} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('users.deleteTitle', { name: deleting.name }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
