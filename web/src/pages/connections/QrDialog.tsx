import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Loader, Text } from '@aws-amplify/ui-react';
import { QRCodeSVG } from 'qrcode.react';
import type { Connection, SessionStatus } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { Modal } from '../../ui/Modal';
import { toast } from '../../ui/toast';
import { mergeConnection, useConnections } from './live';

const QR_SIZE = 256; // spec 000 §2.8
const WAITING: readonly SessionStatus[] = ['qrcode', 'OPENING', 'PAIRING'];

/**
 * The session's QR (or, while PAIRING, its pairing code), following the live session events; it
 * closes by itself once the QR is gone (scanned: CONNECTED) or the connection is deleted.
 */
export default function QrDialog({ connectionId, onClose }: { connectionId: number; onClose: () => void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const qc = useQueryClient();
  const { data } = useConnections();
  const connection = data?.find((c) => c.id === connectionId);
  // The list comes without QR codes: until the connection itself is read, an empty QR means nothing.
  const [loaded, setLoaded] = useState(false);
  const sawCode = useRef(false);

  useEffect(() => {
    let live = true;
    api
      .get<Connection>(`/whatsapp/${connectionId}`)
      .then((c) => {
        if (!live) return;
        if (user) mergeConnection(qc, user.companyId, c);
        setLoaded(true);
      })
      .catch((e) => {
        if (!live) return;
        toastError(e);
        onClose();
      });
    return () => {
      live = false;
    };
  }, [connectionId]);

  const code = connection?.qrcode ?? '';
  const pairing = connection?.status === 'PAIRING';
  if (code) sawCode.current = true;

  useEffect(() => {
    if (!loaded) return;
    if (!connection) return onClose();
    if (connection.status === 'CONNECTED') {
      toast.success(t('connections.connected', { name: connection.name }));
      return onClose();
    }
    // A QR that was shown and is now empty (scanned, expired, a new session), or a session that
    // stopped waiting for one (the QR limit: DISCONNECTED, TIMEOUT).
    if ((!code && sawCode.current) || !WAITING.includes(connection.status)) onClose();
  }, [loaded, connection?.status, code, !!connection]);

  const title = connection ? t(pairing ? 'connections.pairingTitle' : 'connections.qrTitle', { name: connection.name }) : '';
  return (
    <Modal open title={title} onClose={onClose}>
      <div className="qr-dialog" data-testid="qr-dialog">
        {pairing && code ? (
          <Flex direction="column" alignItems="center" gap="1rem">
            <output className="pairing-code" data-testid="pairing-code">
              {code}
            </output>
            <Text textAlign="center">{t('connections.pairingStep')}</Text>
          </Flex>
        ) : (
          <>
            <ol className="qr-steps">
              <li>{t('connections.step1')}</li>
              <li>{t('connections.step2')}</li>
              <li>{t('connections.step3')}</li>
              <li>{t('connections.step4')}</li>
            </ol>
            <div className="qr-box">
              {code ? (
                <QRCodeSVG value={code} size={QR_SIZE} marginSize={2} title={t('connections.qrAlt')} data-testid="qr-code" />
              ) : (
                <Flex direction="column" alignItems="center" justifyContent="center" gap="0.75rem" className="qr-waiting">
                  <Loader size="large" />
                  <Text>{t('connections.qrWaiting')}</Text>
                </Flex>
              )}
            </div>
          </>
        )}
        <Flex justifyContent="flex-end" marginTop="1rem">
          <Button onClick={onClose}>{t('common.close')}</Button>
        </Flex>
      </div>
    </Modal>
  );
}
