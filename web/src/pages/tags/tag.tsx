import type { TagType } from '@balcao/shared';

/** A tag as `GET /tags` answers it. */
export interface Tag {
  id: number;
  name: string;
  color: string;
  type: TagType;
  kanban: 0 | 1;
  ticketsCount: number;
  contactsCount: number;
  /** Goes up with every change of the counts (the newest of a row and a `counts` event wins). */
  countsVersion?: number;
  updatedAt?: string;
}

/** The counts of one tag as the `counts` event carries them. */
export type TagCounts = Pick<Tag, 'id' | 'ticketsCount' | 'contactsCount'> & { countsVersion: number };

/** Black or white text, whichever reads better on `hex` (WCAG relative luminance). */
export function textOn(hex: string): string {
  let h = hex.replace('#', '');
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  if (!/^[0-9a-f]{6}/i.test(h)) return '#fff';
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with black beats contrast with white above this luminance.
  return lum > 0.179 ? '#000' : '#fff';
}

export function TagChip({ tag }: { tag: Pick<Tag, 'name' | 'color'> }) {
  return (
    <span className="tg-chip" style={{ background: tag.color, color: textOn(tag.color) }}>
      {tag.name}
    </span>
  );
}
