import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { SEARCH_DEBOUNCE_MS, type User } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { Avatar } from '../../ui/Avatar';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDebounced } from '../../ui/hooks';
import { useLiveList } from '../../ui/useLiveList';
import { toast } from '../../ui/toast';
import UserDialog from './UserDialog';
import { RowActions, EmptyRow } from '../../ui/TableParts';

export default function Users() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim().toLowerCase(), SEARCH_DEBOUNCE_MS);
  const list = useLiveList<User>({
    path: '/users',
    itemsKey: 'users',
    searchParam,
    event: 'user',
    fromEvent: (data) => (data?.action === 'delete' ? { remove: Number(data.userId) } : data?.user ? { item: data.user as User, created: data.action === 'create' } : null),
    addOnlyCreated: true,
  });
  const { items: users, loading, scroller, onScroll, upsert, removeById } = list;
  const [dialog, setDialog] = useState<{ userId: number | null } | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);

  const remove = async (u: User) => {
    try {
      await api.del(`/users/${u.id}`);
      removeById(u.id);
      toast.success(t('users.deleted'));
    } catch (e) {
      toastError(e);
    }
  };


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
      {dialog && <UserDialog open userId={dialog.userId} onClose={() => setDialog(null)} onSaved={(u) => upsert(u)} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('users.deleteTitle', { name: deleting.name }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
