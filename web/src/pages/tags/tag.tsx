/** A tag as `GET /tags` answers it, and the counts its `counts` event carries (shared/src/contracts.ts). */
import type { ApiTag } from '@balcao/shared';
export type { ApiTag as Tag, TagCounts } from '@balcao/shared';

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

export function TagChip({ tag }: { tag: Pick<ApiTag, 'name' | 'color'> }) {
  return (
    <span className="tg-chip" style={{ background: tag.color, color: textOn(tag.color) }}>
      {tag.name}
    </span>
  );
}
