/** Name and number of a vCard (a contact card message). Only the fields a card shows are read. */
export function parseVcard(body: string): { name: string; number: string } | null {
  if (!/BEGIN:VCARD/i.test(body)) return null;
  const lines = body.split(/\r?\n/);
  const fn = lines.find((l) => /^FN[;:]/i.test(l));
  const tel = lines.find((l) => /^(item\d+\.)?TEL[;:]/i.test(l));
  const name = fn ? fn.slice(fn.indexOf(':') + 1).trim() : '';
  // WhatsApp writes the plain number as waid=...; otherwise take the digits after the colon.
  const waid = tel?.match(/waid=(\d+)/i)?.[1];
  const number = waid ?? (tel ? tel.slice(tel.lastIndexOf(':') + 1).replace(/\D/g, '') : '');
  return { name, number };
}
