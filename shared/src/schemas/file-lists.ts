import { z } from 'zod';
import { MSG } from '../messages.js';

/**
 * File lists (spec 002 §2, §3, §5, §7; issue 20 §3): a named message with a list of options, each a
 * name and (once uploaded) one file. Campaigns send the list's files after their own message.
 */
export const FILE_LISTS_PAGE = 20;
/** Options of one list: a campaign sends every file of the list to every recipient. */
export const FILE_LIST_MAX_OPTIONS = 20;
/** One option's file: what WhatsApp takes as media, within the API's body limit (like quick replies). */
export const FILE_LIST_MEDIA_MAX_BYTES = 5 * 1024 * 1024;
/** The `typeArch` the upload form sends (spec 002 §7). */
export const FILE_LIST_TYPE_ARCH = 'fileList';

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);
/** Form clients may send the options as a JSON text. */
const jsonList = (v: unknown) => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
const page = () => z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(10_000, { error: MSG.invalidValue }).optional();
const search = () => z.preprocess(trimmed, z.string().max(100, { error: MSG.tooLong }).optional());

/** Spec 002 §5: required, at least 3 characters ("nome muito curto"). */
export const fileListNameField = () =>
  z.preprocess(trimmed, z.string({ error: MSG.required }).min(1, { error: MSG.required, abort: true }).min(3, { error: MSG.nomeMuitoCurto }).max(100, { error: MSG.tooLong }));

/** Spec 002 §5: required; kept as written (line breaks and spacing are the message's). */
const messageField = () =>
  z
    .string({ error: MSG.required })
    .max(10_000, { error: MSG.tooLong })
    .refine((s) => s.trim().length > 0, { error: MSG.required });

/**
 * One option as a form sends it: its name, and its id when it is an option already saved (the
 * option keeps its file). `path` and `mediaType` are set by the upload only: values sent here are
 * ignored (a client cannot name stored files).
 */
export const fileListOptionSchema = z.object({
  id: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }).optional()),
  name: z.preprocess(trimmed, z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(100, { error: MSG.tooLong })),
  path: z.unknown().optional(),
  mediaType: z.unknown().optional(),
});

const optionsField = () =>
  z.preprocess(
    jsonList,
    z
      .array(fileListOptionSchema, { error: MSG.invalidValue })
      .max(FILE_LIST_MAX_OPTIONS, { error: MSG.fileListTooManyOptions })
      .superRefine((options, ctx) => {
        const seen = new Set<number>();
        options.forEach((o, i) => {
          if (o.id === undefined) return;
          if (seen.has(o.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: MSG.invalidValue });
          seen.add(o.id);
        });
      }),
  );

/**
 * `POST /files` (spec 002 §7: name, message, options, userId). `userId` is the caller (taken from
 * the identity; a value sent is ignored). On `PUT /files/{id}` every field is optional; `options`,
 * when sent, is the whole new list: an option with the `id` of a saved one keeps its file (and may
 * be renamed), one without `id` is new (no file yet), a saved option left out is removed with its file.
 */
export const fileListSchema = z.object({
  name: fileListNameField(),
  message: messageField(),
  options: optionsField().optional(),
  userId: z.unknown().optional(),
});
export const fileListUpdateSchema = fileListSchema.partial();
export type FileListInput = z.output<typeof fileListSchema>;
export type FileListOptionInput = z.output<typeof fileListOptionSchema>;

/** `GET /files`: pages of 20 by name; `searchParam` narrows by a fragment of the name. */
export const fileListsQuerySchema = z.object({ searchParam: search(), pageNumber: page() });
