import { describe, expect, it } from 'vitest';
import type { Connection } from '@balcao/shared';
import { keepShownQrCodes } from './qr-codes';

const conn = (id: number, status: string, qrcode = ''): Connection => ({ id, name: `C${id}`, status, qrcode }) as unknown as Connection;

describe('connections list refetch', () => {
  it('keeps the QR code shown while the session still waits with the same status', () => {
    const before = [conn(1, 'qrcode', 'QR-A'), conn(2, 'PAIRING', 'CODE-B'), conn(3, 'qrcode', 'QR-C'), conn(4, 'CONNECTED')];
    const fetched = [conn(1, 'qrcode'), conn(2, 'PAIRING'), conn(3, 'CONNECTED'), conn(4, 'CONNECTED'), conn(5, 'qrcode')];
    expect(keepShownQrCodes(before, fetched).map((c) => [c.id, c.status, c.qrcode])).toEqual([
      [1, 'qrcode', 'QR-A'],
      [2, 'PAIRING', 'CODE-B'],
      // Scanned meanwhile: its code is gone.
      [3, 'CONNECTED', ''],
      [4, 'CONNECTED', ''],
      [5, 'qrcode', ''],
    ]);
    // A fresher code from the server wins; nothing known keeps the list as it came.
    expect(keepShownQrCodes(before, [conn(1, 'qrcode', 'QR-NEW')])[0].qrcode).toBe('QR-NEW');
    expect(keepShownQrCodes(undefined, fetched)).toEqual(fetched);
  });
});
