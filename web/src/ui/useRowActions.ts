import { useCallback, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { toastError } from '../api/errors';
import { useDebounced } from './hooks';
import { toast } from './toast';

/** A table's search box and the term it asks for, 500 ms after the last keystroke (`normalise`d). */
export function useSearch(normalise: (s: string) => string = (s) => s.trim()) {
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(normalise(search), SEARCH_DEBOUNCE_MS);
  return { search, setSearch, searchParam };
}

export const lowerCase = (s: string) => s.trim().toLowerCase();

/**
 * The add/edit dialog and the delete confirmation of a table's rows. `editing` is `{item: null}`
 * for a new record; a confirmed delete calls `remove`, then `onRemoved` and the deleted toast
 * (`deletedText`, or made from the answer; `deletedKind` when it is not a success toast).
 */
export function useRowActions<T, R = unknown>(o: {
  remove: (item: T) => Promise<R>;
  onRemoved?: (item: T) => void;
  deletedText: string | ((answer: R) => string);
  deletedKind?: 'success' | 'info';
}) {
  const [editing, setEditing] = useState<{ item: T | null } | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const remove = async (item: T) => {
    try {
      const answer = await o.remove(item);
      o.onRemoved?.(item);
      toast[o.deletedKind ?? 'success'](typeof o.deletedText === 'function' ? o.deletedText(answer) : o.deletedText);
    } catch (e) {
      toastError(e);
    }
  };
  // Stable, so rows rendered by memoised components (the calendar's agenda) keep their identity.
  const askDelete = useCallback((item: T) => setDeleting(item), []);
  return {
    editing,
    add: () => setEditing({ item: null }),
    edit: (item: T) => setEditing({ item }),
    close: () => setEditing(null),
    deleting,
    askDelete,
    cancelDelete: () => setDeleting(null),
    confirmDelete: () => deleting && void remove(deleting),
  };
}

export type RowActionsState<T> = ReturnType<typeof useRowActions<T>>;
