import { describe, expect, it } from 'vitest';
import { addTodo, editTodo, parseTodos, removeTodo, todoStorageKey } from './todos';

const T0 = '2026-01-01T10:00:00.000Z';
const T1 = '2026-01-01T11:00:00.000Z';

describe('to-do list', () => {
  it('adds trimmed tasks with both dates and ignores blank text', () => {
    const one = addTodo([], '  Ligar para o cliente  ', T0, 'a');
    expect(one).toEqual([{ id: 'a', text: 'Ligar para o cliente', createdAt: T0, updatedAt: T0 }]);
    expect(addTodo(one, '   ', T1, 'b')).toBe(one);
    expect(addTodo(one, '', T1, 'b')).toBe(one);
  });

  it('edits the text and the update date only; blank or unchanged text is ignored', () => {
    const list = addTodo(addTodo([], 'A', T0, 'a'), 'B', T0, 'b');
    const edited = editTodo(list, 'b', ' B2 ', T1);
    expect(edited[1]).toEqual({ id: 'b', text: 'B2', createdAt: T0, updatedAt: T1 });
    expect(edited[0]).toBe(list[0]);
    expect(editTodo(list, 'b', '  ', T1)).toBe(list);
    expect(editTodo(list, 'b', 'B', T1)[1]!.updatedAt).toBe(T0);
  });

  it('removes by id', () => {
    const list = addTodo(addTodo([], 'A', T0, 'a'), 'B', T0, 'b');
    expect(removeTodo(list, 'a').map((t) => t.id)).toEqual(['b']);
  });

  it('reads what it stored, and nothing from anything else', () => {
    const list = addTodo([], 'A', T0, 'a');
    expect(parseTodos(JSON.stringify(list))).toEqual(list);
    expect(parseTodos(null)).toEqual([]);
    expect(parseTodos('{oops')).toEqual([]);
    expect(parseTodos('{"a":1}')).toEqual([]);
    expect(parseTodos(JSON.stringify([...list, { text: 1 }, null]))).toEqual(list);
    expect(todoStorageKey(7)).toBe('todolist:7');
  });
});
