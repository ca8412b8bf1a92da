import type { FieldValues, Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import { translateMessage } from '../i18n';

/** The shared schemas preprocess their input (typed unknown); forms hold plain strings. */
export function resolver<T extends FieldValues>(schema: z.ZodType): Resolver<T> {
  return zodResolver(schema as never) as unknown as Resolver<T>;
}

export const fieldError = (e: { message?: string } | undefined) => (e?.message ? translateMessage(e.message) : undefined);

export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
