import { useTranslation } from 'react-i18next';
import type { ANNOUNCEMENT_EVENT, CompanyEventKind } from '@balcao/shared';
import { recordEvent, useLiveList, type ListItem } from './useLiveList';
import { lowerCase, useRowActions, useSearch } from './useRowActions';

/**
 * An admin table's data (users, tags, quick replies): the search, the live paged list and the
 * row actions. `eventNames`: the event's field for a deleted row's id and for a changed row.
 */
export function useLiveTable<T extends ListItem>(o: {
  api: { path: string; remove: (id: number) => Promise<unknown> };
  itemsKey: string;
  event: CompanyEventKind | typeof ANNOUNCEMENT_EVENT;
  eventNames: [idKey: string, itemKey: string];
  /** The page's texts in the catalogues: `<texts>.deleted` is the deleted toast. */
  texts: string;
  matches?: (item: T, searchParam: string) => boolean;
  addOnlyCreated?: boolean;
}) {
  const { t } = useTranslation();
  const { search, setSearch, searchParam } = useSearch(lowerCase);
  const { api, eventNames, texts, ...rest } = o;
  const list = useLiveList<T>({ ...rest, path: api.path, searchParam, fromEvent: recordEvent<T>(...eventNames) });
  const actions = useRowActions<T>({ remove: (x) => api.remove(x.id), onRemoved: (x) => list.removeById(x.id), deletedText: t(`${texts}.deleted`) });
  return { ...list, search: { value: search, onChange: setSearch }, actions };
}

export type LiveTable<T extends ListItem> = ReturnType<typeof useLiveTable<T>>;
