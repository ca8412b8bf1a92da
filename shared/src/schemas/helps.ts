import { z } from 'zod';
import { MSG } from '../validation.js';

/** Rows per page of the settings Help tab (`GET /helps`). */
export const HELPS_PAGE = 20;

/** A YouTube video id: 11 characters of the URL-safe base64 alphabet. */
const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtu.be', 'youtube-nocookie.com', 'www.youtube-nocookie.com']);

/**
 * The video code of a help (spec 003 §3: "video (video code)"), from what a super user types: the
 * code itself, or a YouTube address pasted from the browser (watch?v=, youtu.be/, embed/, shorts/,
 * live/, with or without the scheme). Answers null for anything else, so only a bare id is stored
 * and the console builds every address from it (decision 59).
 */
export function youtubeVideoId(input: string): string | null {
  const text = input.trim();
  if (YOUTUBE_ID.test(text)) return text;
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  if (!YOUTUBE_HOSTS.has(host)) return null;
  const candidate =
    host === 'youtu.be' ? url.pathname.split('/')[1] : url.pathname === '/watch' ? url.searchParams.get('v') : /^\/(?:embed|shorts|live|v)\/([^/?#]+)/.exec(url.pathname)?.[1];
  return candidate && YOUTUBE_ID.test(candidate) ? candidate : null;
}

/** The player of a help: YouTube's privacy-enhanced domain (no cookies until the video plays). */
export const helpEmbedUrl = (video: string) => `https://www.youtube-nocookie.com/embed/${encodeURIComponent(video)}`;
/** The card's picture: YouTube's cookie-less image host. */
export const helpThumbnailUrl = (video: string) => `https://i.ytimg.com/vi/${encodeURIComponent(video)}/mqdefault.jpg`;

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);

/** Help dialog (spec 003 §2, §3): title required; the video a YouTube code or address; description free text. */
export const helpSchema = z.object({
  title: z.preprocess(trimmed, z.string({ error: MSG.obrigatorio }).min(1, { error: MSG.obrigatorio }).max(100, { error: MSG.tooLong })),
  video: z.preprocess(
    trimmed,
    z
      .string({ error: MSG.obrigatorio })
      .min(1, { error: MSG.obrigatorio })
      .max(300, { error: MSG.helpVideoInvalid })
      .transform((v, ctx) => {
        const id = youtubeVideoId(v);
        if (id) return id;
        ctx.addIssue({ code: 'custom', message: MSG.helpVideoInvalid });
        return z.NEVER;
      }),
  ),
  description: z.preprocess((v) => (v === null || v === undefined ? '' : trimmed(v)), z.string({ error: MSG.invalidValue }).max(2000, { error: MSG.tooLong })),
});
export const helpUpdateSchema = helpSchema.partial();
export type HelpInput = z.output<typeof helpSchema>;

export const helpListQuerySchema = z.object({
  searchParam: z.string().max(100, { error: MSG.tooLong }).optional(),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
});
