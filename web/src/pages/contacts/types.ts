import type { ApiAnswers, ApiContactFull } from '@balcao/shared';

/** A contact as `GET /contacts` and `GET /contacts/{id}` answer it (spec 001 §3 "Contact"; shared/src/contracts.ts). */
export type Contact = ApiContactFull & { whatsapp?: { id: number; name: string } | null };

export type ContactsPage = ApiAnswers['GET /contacts'];

/** The answer of one `POST /contacts/importList` call (a slice of `POST /contacts/import` adds `total` and `next`). */
export type { ImportResult } from '@balcao/shared';
