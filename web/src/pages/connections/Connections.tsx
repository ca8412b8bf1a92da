import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow } from '@aws-amplify/ui-react';
import { can, type Connection } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { Icon } from '../../ui/icons';
import { formatWhatsappNumber } from '../../ui/phone';
import { toast } from '../../ui/toast';
import ConnectionDialog from './ConnectionDialog';
import QrDialog from './QrDialog';
import { connectionsKey, mergeConnection, useConnections } from './live';
import { RowActions, EmptyRow } from '../../ui/TableParts';

type SessionAction = 'tryAgain' | 'newQr' | 'reconnect' | 'disconnect';

const SESSION_CALLS: Record<SessionAction, (id: number) => Promise<Connection>> = {
  tryAgain: (id) => api.post<Connection>(`/whatsappsession/${id}`),
  newQr: (id) => api.put<Connection>(`/whatsappsession/${id}`),
  reconnect: (id) => api.post<Connection>(`/whatsappsession/reconnect/${id}`),
  disconnect: (id) => api.del<Connection>(`/whatsappsession/${id}`),
};

export default function Connections() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const qc = useQueryClient();
  const { data: connections = [], isLoading, error } = useConnections();
  const [editing, setEditing] = useState<Connection | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Connection | null>(null);
  const [disconnecting, setDisconnecting] = useState<Connection | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  const [busy, setBusy] = useState<Record<number, boolean>>({});
  const mayAct = can(user?.profile, 'connections-page:actionButtons');
  const mayAdd = can(user?.profile, 'connections-page:addConnection');
  const mayEdit = can(user?.profile, 'connections-page:editOrDeleteConnection');

  useEffect(() => {
    if (error) toastError(error);
  }, [error]);

  const merge = (c: Connection) => user && mergeConnection(qc, user.companyId, c);

  const session = async (c: Connection, action: SessionAction) => {
    setBusy((b) => ({ ...b, [c.id]: true }));
    try {
      const answer = await SESSION_CALLS[action](c.id);
      // The live status follows; the answer already carries the command's first effect.
      if (answer && typeof answer === 'object' && 'id' in answer) merge(answer);
    } catch (e) {
      toastError(e);
    } finally {
      setBusy((b) => ({ ...b, [c.id]: false }));
    }
  };

  const remove = async (c: Connection) => {
    try {
      await api.del(`/whatsapp/${c.id}`);
      if (user) qc.setQueryData<Connection[]>(connectionsKey(user.companyId), (l = []) => l.filter((x) => x.id !== c.id));
      toast.success(t('connections.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  const actions = (c: Connection) => {
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
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('connections.title')}</Heading>
        {mayAdd && (
          <Button variation="primary" onClick={() => setEditing(null)}>
            {t('connections.add')}
          </Button>
        )}
      </Flex>
      <div className="table-scroll">
        <Table highlightOnHover size="small" className="data-table connections-table">
          <TableHead>
            <TableRow>
              <TableCell as="th">{t('connections.name')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('connections.number')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('connections.status')}</TableCell>
              {mayAct && <TableCell as="th">{t('connections.session')}</TableCell>}
              <TableCell as="th" className="hide-narrow">{t('connections.updatedAt')}</TableCell>
              <TableCell as="th" className="center-col hide-narrow">{t('connections.default')}</TableCell>
              {mayEdit && <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>}
            </TableRow>
          </TableHead>
          <TableBody>
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
                      {actions(c)}
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
                {mayEdit && (
                  <RowActions name={c.name} onEdit={() => setEditing(c)} onDelete={() => setDeleting(c)} />
                )}
              </TableRow>
            ))}
            <EmptyRow show={!isLoading && connections.length === 0} colSpan={7} />
          </TableBody>
        </Table>
        {isLoading && <Loader variation="linear" />}
      </div>
      {editing !== undefined && <ConnectionDialog connectionId={editing?.id ?? null} onClose={() => setEditing(undefined)} onSaved={merge} />}
      {qrFor !== null && <QrDialog connectionId={qrFor} onClose={() => setQrFor(null)} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('connections.deleteTitle', { name: deleting.name }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
      <ConfirmDialog
        open={!!disconnecting}
        title={disconnecting ? t('connections.disconnectTitle', { name: disconnecting.name }) : ''}
        message={t('connections.disconnectText')}
        onClose={() => setDisconnecting(null)}
        onConfirm={() => disconnecting && void session(disconnecting, 'disconnect')}
      />
    </Flex>
  );
}
