import type { TagType } from '@balcao/shared';
import { batchGet } from '../core/db.js';
import { tagKey } from '../table/keys.js';
import type { TagItem } from '../table/items.js';

/** How tickets and contacts name their tags (the tags service keeps them; pages only read them). */
export type TagRef = { id: number; name: string; color: string; type: TagType };

export const tagRef = (t: TagItem): TagRef => ({ id: t.id, name: t.name, color: t.color, type: t.type });

/** The tags of a set of ids, as `{id, name, color, type}` (one BatchGet; vanished ids dropped). */
export async function tagRefs(companyId: number, ids: Iterable<number>): Promise<Map<number, TagRef>> {
  const list = [...new Set(ids)].filter((x) => Number.isSafeInteger(x) && x > 0);
  if (!list.length) return new Map();
  const items = await batchGet<TagItem>(list.map((id) => tagKey(companyId, id)));
  return new Map(items.filter((t) => t.entity === 'tag' && !t.deleting).map((t) => [t.id, tagRef(t)]));
}

export const refsOf = (ids: number[] | undefined, refs: Map<number, TagRef>): TagRef[] =>
  (ids ?? []).map((id) => refs.get(id)).filter((t): t is TagRef => !!t);
