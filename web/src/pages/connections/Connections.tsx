import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Flex, TableCell, TableRow } from '@aws-amplify/ui-react';
import { can, type Connection } from '@balcao/shared';
import { connectionsApi } from '../../api/connections';
import { toastError } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { Icon } from '../../ui/icons';
import { formatWhatsappNumber } from '../../ui/phone';
import { RowActions } from '../../ui/TableParts';
import { useErrorToast } from '../../ui/useLiveQuery';
import { useRowActions } from '../../ui/useRowActions';
import ConnectionDialog from './ConnectionDialog';
import QrDialog from './QrDialog';
import { TokenReveal } from './TokenReveal';
import { connectionsKey, mergeConnection, useConnections } from './live';

type SessionAction = 'tryAgain' | 'newQr' | 'reconnect' | 'disconnect';


export default function Connections() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const qc = useQueryClient();
  const { data: connections = [], isLoading, error } = useConnections();
  const [disconnecting, setDisconnecting] = useState<Connection | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  /** A token the server just made: shown once, after the dialog that asked for it closes. */
  const [newToken, setNewToken] = useState<{ name: string; token: string } | null>(null);
  const [busy, setBusy] = useState<Record<number, boolean>>({});
  const mayAct = can(user?.profile, 'connections-page:actionButtons');
  const mayAdd = can(user?.profile, 'connections-page:addConnection');
  const mayEdit = can(user?.profile, 'connections-page:editOrDeleteConnection');

  useErrorToast(error);

  const merge = (c: Connection) => user && mergeConnection(qc, user.companyId, c);

  const session = async (c: Connection, action: SessionAction) => {
    setBusy((b) => ({ ...b, [c.id]: true }));
    try {
      const answer = await connectionsApi[action](c.id);
      // The live status follows; the answer already carries the command's first effect.
      if (answer && typeof answer === 'object' && 'id' in answer) merge(answer);
    } catch (e) {
      toastError(e);
    } finally {
      setBusy((b) => ({ ...b, [c.id]: false }));
    }
  };

  const actions = useRowActions<Connection>({
    remove: (c) => connectionsApi.remove(c.id),
    onRemoved: (c) => user && qc.setQueryData<Connection[]>(connectionsKey(user.companyId), (l = []) => l.filter((x) => x.id !== c.id)),
    deletedText: t('connections.deleted'),
  });

  const sessionButtons = (c: Connection) => {
    const disabled = !!busy[c.id];
    const btn = (label: string, onClick: () => void, variation?: 'primary') => (
      <Button size="small" variation={variation} isDisabled={disabled} onClick={onClick}>
        {label}
      </Button>
    );
    switch (c.status) {
      case 'qrcode':
        return btn(t('connections.buttons.qrcode'), () => setQrFor(c.id), 'primary');
      case 'DISCONNECTED':
        return (
          <>
            {btn(t('connections.buttons.tryAgain'), () => void session(c, 'tryAgain'), 'primary')}
            {btn(t('connections.buttons.newQr'), () => void session(c, 'newQr'))}
          </>
        );
      case 'PAIRING':
      case 'TIMEOUT':
        return (
          <>
            {c.status === 'PAIRING' && btn(t('connections.buttons.showCode'), () => setQrFor(c.id), 'primary')}
            {btn(t('connections.buttons.disconnect'), () => setDisconnecting(c))}
            {btn(t('connections.buttons.reconnect'), () => void session(c, 'reconnect'))}
          </>
        );
      case 'OPENING':
        return (
          <Button size="small" isDisabled isLoading loadingText={t('connections.buttons.connecting')}>
            {t('connections.buttons.connecting')}
          </Button>
        );
      case 'CONNECTED':
        return btn(t('connections.buttons.disconnect'), () => setDisconnecting(c));
      default:
        return null;
    }
  };

  const statusChip = (c: Connection, testId?: string) => (
    <span className={`status-chip status-${c.status}`} data-testid={testId}>
      {t(`connections.statuses.${c.status}`, { defaultValue: c.status })}
    </span>
  );

  const sorted = [...connections].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
  return (
    <EntityTablePage
      texts="connections"
      add={mayAdd}
      actions={actions}
      nameOf={(c) => c.name}
      columns={['name', ['number', 'hide-narrow'], ['status', 'hide-narrow'], { label: t('connections.session'), show: mayAct }, ['updatedAt', 'hide-narrow'], ['default', 'center-col hide-narrow']]}
      actionsColumn={mayEdit}
      loading={isLoading}
      empty={connections.length === 0}
      className="connections-table"
      dialogs={
        <>
          {actions.editing && (
            <ConnectionDialog
              connectionId={actions.editing.item?.id ?? null}
              onClose={actions.close}
              onSaved={(c) => {
                merge({ ...c, token: '' });
                if (c.token) setNewToken({ name: c.name, token: c.token });
              }}
            />
          )}
          {newToken && <TokenReveal name={newToken.name} token={newToken.token} onClose={() => setNewToken(null)} />}
          {qrFor !== null && <QrDialog connectionId={qrFor} onClose={() => setQrFor(null)} />}
          <ConfirmDialog
            open={!!disconnecting}
            title={disconnecting ? t('connections.disconnectTitle', { name: disconnecting.name }) : ''}
            message={t('connections.disconnectText')}
            onClose={() => setDisconnecting(null)}
            onConfirm={() => disconnecting && void session(disconnecting, 'disconnect')}
          />
        </>
      }
    >
      {sorted.map((c) => (
        <TableRow key={c.id} data-testid={`connection-row-${c.id}`} data-status={c.status}>
          <TableCell>
            <span>{c.name}</span>
            {c.provider === 'sandbox' && <span className="tag-muted hide-narrow">{t('connections.providers.sandbox')}</span>}
            {/* Phones have no room for every column: status, number and default go under the name. */}
            <div className="show-narrow narrow-details">
              {c.isDefault && (
                <span className="default-mark" role="img" aria-label={t('connections.isDefault')}>
                  <Icon name="star" size={16} />
                </span>
              )}
              {statusChip(c)}
              {c.number && <span className="nowrap">{formatWhatsappNumber(c.number)}</span>}
            </div>
          </TableCell>
          <TableCell className="nowrap hide-narrow" data-testid="connection-number">{formatWhatsappNumber(c.number)}</TableCell>
          <TableCell className="hide-narrow">{statusChip(c, 'connection-status')}</TableCell>
          {mayAct && (
            <TableCell>
              <Flex gap="0.4rem" wrap="wrap" className="session-actions">
                {sessionButtons(c)}
              </Flex>
            </TableCell>
          )}
          <TableCell className="hide-narrow nowrap">{dates.shortDateTime(c.updatedAt)}</TableCell>
          <TableCell className="center-col hide-narrow">
            {c.isDefault && (
              <span className="default-mark" role="img" aria-label={t('connections.isDefault')} title={t('connections.isDefault')} data-testid="connection-default">
                <Icon name="star" size={20} />
              </span>
            )}
          </TableCell>
          {mayEdit && <RowActions name={c.name} onEdit={() => actions.edit(c)} onDelete={() => actions.askDelete(c)} />}
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
