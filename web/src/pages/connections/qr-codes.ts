import type { Connection } from '@balcao/shared';

/**
 * The connections list comes without QR codes (`session=0`; the session events bring them). A
 * refetch of the list (after the socket opens again) keeps the code already shown for a connection
 * that still waits with the same status, so an open QR dialog does not take the missing code for
 * a scanned one and close.
 */
export function keepShownQrCodes(before: readonly Connection[] | undefined, list: Connection[]): Connection[] {
  const known = new Map((before ?? []).map((c) => [c.id, c]));
  return list.map((c) => {
    const b = known.get(c.id);
    return !c.qrcode && b?.qrcode && b.status === c.status ? { ...c, qrcode: b.qrcode } : c;
  });
}
