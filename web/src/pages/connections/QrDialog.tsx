import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Loader, Text, TextField } from '@aws-amplify/ui-react';
import { QRCodeSVG } from 'qrcode.react';
import type { SessionStatus } from '@balcao/shared';
import { connectionsApi } from '../../api/connections';
import { realtime } from '../../api/realtime';
import { ApiError } from '../../api/http';
import { toastError } from '../../api/errors';
import { translateMessage } from '../../i18n';
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
  const [pairingOpen, setPairingOpen] = useState(false);
  const [pairingNumber, setPairingNumber] = useState('');
  const [pairingError, setPairingError] = useState<string | undefined>();
  const [requesting, setRequesting] = useState(false);
  /** Between the pairing request and the code, the empty QR of the restarting session is expected. */
  const awaitingPairing = useRef(false);

  // Link with a pairing code: the session starts over (its QR goes away) and reports PAIRING with the code.
  const requestPairing = async () => {
    setPairingError(undefined);
    setRequesting(true);
    try {
      awaitingPairing.current = true;
      // POST (start over): with a running session, the host's newQr keeps the QR mode and ignores the number.
      await connectionsApi.tryAgain(connectionId, { pairingNumber });
    } catch (e) {
      const field = e instanceof ApiError ? e.body.fields?.find((f) => f.field === 'pairingNumber') : undefined;
      awaitingPairing.current = false;
      if (field) setPairingError(translateMessage(field.message));
      else toastError(e);
    } finally {
      setRequesting(false);
    }
  };

  // Read again each time the socket opens again: a QR shown meanwhile came by an event it missed.
  const [reads, setReads] = useState(0);
  useEffect(() => realtime.onReconnect(() => setReads((n) => n + 1)), []);
  useEffect(() => {
    let live = true;
    connectionsApi
      .get(connectionId)
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
  }, [connectionId, reads]);

  const code = connection?.qrcode ?? '';
  const pairing = connection?.status === 'PAIRING';
  if (code) sawCode.current = true;
  if (pairing && code) awaitingPairing.current = false;

  useEffect(() => {
    if (!loaded) return;
    if (!connection) return onClose();
    if (connection.status === 'CONNECTED') {
      toast.success(t('connections.connected', { name: connection.name }));
      return onClose();
    }
    // A QR that was shown and is now empty (scanned, expired, a new session), or a session that
    // stopped waiting for one (the QR limit: DISCONNECTED, TIMEOUT).
    // While the session restarts for a pairing code, its passing states (no QR, a stopped old
    // session) are expected.
    if (awaitingPairing.current) return;
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
            {/* Pointing the phone at the screen only makes sense for a QR. */}
            {!pairing && !awaitingPairing.current && (
              <ol className="qr-steps">
                <li>{t('connections.step1')}</li>
                <li>{t('connections.step2')}</li>
                <li>{t('connections.step3')}</li>
                <li>{t('connections.step4')}</li>
              </ol>
            )}
            <div className="qr-box">
              {code ? (
                <QRCodeSVG value={code} size={QR_SIZE} marginSize={2} title={t('connections.qrAlt')} data-testid="qr-code" />
              ) : (
                <Flex direction="column" alignItems="center" justifyContent="center" gap="0.75rem" className="qr-waiting">
                  <Loader size="large" />
                  <Text>{t(pairing || awaitingPairing.current ? 'connections.pairingWaiting' : 'connections.qrWaiting')}</Text>
                </Flex>
              )}
            </div>
          </>
        )}
        {!pairing && (
          <div className="pairing-request">
            {pairingOpen ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void requestPairing();
                }}
              >
                <Flex alignItems="flex-start" gap="0.5rem" wrap="wrap">
                  <TextField
                    flex="1 1 200px"
                    label={t('connections.pairingNumber')}
                    placeholder="55 11 91234-5678"
                    inputMode="tel"
                    autoComplete="tel"
                    value={pairingNumber}
                    onChange={(e) => setPairingNumber(e.target.value)}
                    hasError={!!pairingError}
                    errorMessage={pairingError}
                  />
                  <Button type="submit" marginTop="1.9rem" isLoading={requesting} isDisabled={!pairingNumber.trim()}>
                    {t('connections.pairingSubmit')}
                  </Button>
                </Flex>
              </form>
            ) : (
              <Button variation="link" size="small" onClick={() => setPairingOpen(true)}>
                {t('connections.pairingLink')}
              </Button>
            )}
          </div>
        )}
        <Flex justifyContent="flex-end" marginTop="1rem">
          <Button onClick={onClose}>{t('common.close')}</Button>
        </Flex>
      </div>
    </Modal>
  );
}
