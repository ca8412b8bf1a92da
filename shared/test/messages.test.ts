import { describe, expect, it } from 'vitest';
import {
  storedContentType,
  displayFileName,
  FILE_CONTENT_MISMATCH,
  FILE_TYPE_NOT_ALLOWED,
  buildVcard,
  checkMedia,
  forwardSchema,
  mediaKindOf,
  parseVcard,
  safeFileName,
  sendMessageSchema,
  sniffContentType,
} from '../src/index.js';

const bytes = (...parts: (number[] | string)[]) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)));
const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], '....IHDR');
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF');
const MP4 = bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]);
const M4A = bytes([0, 0, 0, 0x20], 'ftypM4A ', [0, 0, 2, 0]);
const WEBM = bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86]);
const MB = 1024 * 1024;

describe('media checks', () => {
  it('sniffs the formats that have a signature', () => {
    expect(sniffContentType(PNG)).toBe('image/png');
    expect(sniffContentType(JPEG)).toBe('image/jpeg');
    expect(sniffContentType(MP4)).toBe('video/mp4');
    expect(sniffContentType(M4A)).toBe('audio/mp4');
    expect(sniffContentType(WEBM)).toBe('video/webm');
    expect(sniffContentType(bytes('OggS', [0, 2]))).toBe('audio/ogg');
    expect(sniffContentType(bytes('ID3', [4, 0]))).toBe('audio/mpeg');
    expect(sniffContentType(bytes([0xff, 0xfb, 0x90]))).toBe('audio/mpeg');
    expect(sniffContentType(bytes([0xff, 0xf1, 0x50]))).toBe('audio/aac');
    expect(sniffContentType(bytes('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffContentType(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '))).toBe('audio/wav');
    expect(sniffContentType(bytes('hello'))).toBeUndefined();
  });

  it('accepts the allowed kinds within their limits and refuses the rest', () => {
    expect(mediaKindOf('image/jpg')).toBe('image');
    expect(mediaKindOf('audio/webm;codecs=opus')).toBe('audio');
    expect(mediaKindOf('application/vnd.ms-excel')).toBe('document');
    expect(mediaKindOf('text/csv')).toBe('document');
    expect(mediaKindOf('image/svg+xml')).toBeUndefined();
    expect(mediaKindOf('text/html')).toBeUndefined();
    expect(checkMedia('image/png', 1000, PNG)).toEqual({ ok: true, kind: 'image', mimetype: 'image/png' });
    expect(checkMedia('image/png', 6 * MB, PNG)).toMatchObject({ ok: false, message: expect.stringContaining('5 MB') });
    expect(checkMedia('video/mp4', 15 * MB, MP4)).toMatchObject({ ok: true, kind: 'video' });
    expect(checkMedia('video/mp4', 17 * MB, MP4)).toMatchObject({ ok: false, message: expect.stringContaining('16 MB') });
    expect(checkMedia('audio/webm;codecs=opus', 20_000, WEBM)).toMatchObject({ ok: true, kind: 'audio', mimetype: 'audio/webm' });
    expect(checkMedia('application/x-anything', 99 * MB, bytes('whatever'))).toMatchObject({ ok: true, kind: 'document' });
    expect(checkMedia('application/pdf', 101 * MB, bytes('%PDF-1.4'))).toMatchObject({ ok: false });
    expect(checkMedia('text/html', 10, bytes('<html>'))).toEqual({ ok: false, message: FILE_TYPE_NOT_ALLOWED });
  });

  it('refuses bytes that are not what the type claims', () => {
    expect(checkMedia('image/png', 1000, JPEG)).toEqual({ ok: false, message: FILE_CONTENT_MISMATCH });
    expect(checkMedia('application/pdf', 1000, PNG)).toEqual({ ok: false, message: FILE_CONTENT_MISMATCH });
    expect(checkMedia('text/plain', 10, bytes('ab', [0], 'cd'))).toEqual({ ok: false, message: FILE_CONTENT_MISMATCH });
    expect(checkMedia('application/vnd.openxmlformats-officedocument.wordprocessingml.document', 1000, bytes('PK', [3, 4]))).toMatchObject({ ok: true });
  });

  it('makes safe storage names', () => {
    expect(safeFileName('../../etc/Relatório de março.pdf')).toBe('Relatorio_de_marco.pdf');
    expect(safeFileName('...')).toBe('arquivo');
  });
});

describe('vCard', () => {
  it('builds a card WhatsApp opens and reads it back', () => {
    const card = buildVcard('Ana; Souza, Jr', '5511987654321');
    expect(card).toContain('VERSION:3.0');
    expect(card).toContain('waid=5511987654321:+5511987654321');
    expect(parseVcard(card)).toEqual({ name: 'Ana; Souza, Jr', number: '5511987654321' });
  });
});

describe('payloads', () => {
  it('reads the send body in the spec client shapes', () => {
    const ok = sendMessageSchema.safeParse({ body: 'oi', quotedMsg: { id: 'ABC' }, editMsg: { id: 'X1' }, contacts: [{ name: 'Ana', number: '(11) 98765-4321' }] });
    expect(ok.success && ok.data).toMatchObject({ quotedMsg: 'ABC', editMsg: { id: 'X1' }, contacts: [{ number: '5511987654321' }] });
    const bad = sendMessageSchema.safeParse({ medias: [{ key: 'k' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].path).toEqual(['medias', 0, 'name']);
  });

  it('forward needs a contact and a message', () => {
    expect(forwardSchema.safeParse({ contactId: 3, messageId: 'A' }).success).toBe(true);
    expect(forwardSchema.safeParse({ contactId: 3, messageIds: ['A', 'B'] }).success).toBe(true);
    const none = forwardSchema.safeParse({ contactId: 3 });
    expect(none.success).toBe(false);
    expect(none.error?.issues[0].path).toEqual(['messageId']);
  });
});

describe('stored content types (issue 16 §3)', () => {
  it('keeps inert types and stores everything else as a download', () => {
    for (const t of ['image/png', 'image/jpeg', 'image/webp', 'audio/ogg; codecs=opus', 'video/mp4', 'application/pdf', 'text/plain', 'text/csv']) {
      expect(storedContentType(t)).toBe(t);
    }
    for (const t of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'application/xml', 'text/xml', 'application/javascript', 'text/html; charset=utf-8', 'IMAGE/SVG+XML', '', 'application/zip']) {
      expect(storedContentType(t)).toBe('application/octet-stream');
    }
  });
});

describe('file names as shown (issue 16 §3)', () => {
  it('drops direction overrides and invisible marks, keeps the rest', () => {
    expect(displayFileName('fatura\u202Efdp.exe')).toBe('faturafdp.exe');
    expect(displayFileName('a\u2066b\u2069c\u200Fd\u061Ce.pdf')).toBe('abcde.pdf');
    expect(displayFileName('../../Orçamento 2026.pdf')).toBe('Orçamento 2026.pdf');
  });
});
