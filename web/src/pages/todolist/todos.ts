/**
 * The personal to-do list (spec 002 §2, §3, §5): kept only in the browser, one list per user of the
 * browser (decision 59). Pure functions over the list; the page reads and writes `localStorage`.
 */
export interface Todo {
  id: string;
  text: string;
  createdAt: string;
  updatedAt: string;
}

/** One key per signed-in user: two people sharing a browser do not see each other's tasks. */
export const todoStorageKey = (userId: number) => `todolist:${userId}`;

const isTodo = (x: unknown): x is Todo => {
  const t = x as Partial<Todo> | null;
  return !!t && typeof t.id === 'string' && typeof t.text === 'string' && typeof t.createdAt === 'string' && typeof t.updatedAt === 'string';
};

/** The stored list; anything unreadable (edited by hand, another version's shape) reads as nothing, entry by entry. */
export function parseTodos(raw: string | null): Todo[] {
  if (!raw) return [];
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter(isTodo) : [];
  } catch {
    return [];
  }
}

/** Adds a task at the end; blank text is ignored (spec 002 §5). */
export function addTodo(list: Todo[], text: string, now: string, id: string): Todo[] {
  const clean = text.trim();
  if (!clean) return list;
  return [...list, { id, text: clean, createdAt: now, updatedAt: now }];
}

/** Changes a task's text; blank text is ignored like on add (the task keeps its text), and so is no change. */
export function editTodo(list: Todo[], id: string, text: string, now: string): Todo[] {
  const clean = text.trim();
  if (!clean) return list;
  return list.map((t) => (t.id === id && t.text !== clean ? { ...t, text: clean, updatedAt: now } : t));
}

export const removeTodo = (list: Todo[], id: string): Todo[] => list.filter((t) => t.id !== id);
