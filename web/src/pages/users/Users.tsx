import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { User } from '@balcao/shared';
import { usersApi } from '../../api/users';
import { Avatar } from '../../ui/Avatar';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
import UserDialog from './UserDialog';

export default function Users() {
  const { t } = useTranslation();
  const live = useLiveTable<User>({ api: usersApi, itemsKey: 'users', event: 'user', eventNames: ['userId', 'user'], addOnlyCreated: true, texts: 'users' });
  const { items: users, actions } = live;

  return (
    <EntityTablePage
      texts="users" live={live} add nameOf={(u) => u.name}
      columns={['avatar', 'id', 'name', ['email', 'hide-narrow'], 'profile']}
      dialogs={actions.editing && <UserDialog open userId={actions.editing.item?.id ?? null} onClose={actions.close} onSaved={(u) => live.upsert(u)} />}
    >
      {users.map((u) => (
        <TableRow key={u.id} data-testid={`user-row-${u.id}`}>
          <TableCell>
            <Avatar name={u.name} photoUrl={u.photoUrl} online={!!u.online} />
          </TableCell>
          <TableCell>{u.id}</TableCell>
          <TableCell>{u.name}</TableCell>
          <TableCell className="hide-narrow">{u.email}</TableCell>
          <TableCell>{t(`profiles.${u.profile}`, { defaultValue: u.profile })}</TableCell>
          <RowActions name={u.name} onEdit={() => actions.edit(u)} onDelete={() => actions.askDelete(u)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
