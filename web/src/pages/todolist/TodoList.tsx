import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Text, TextField } from '@aws-amplify/ui-react';
import { useAuth } from '../../auth/AuthContext';
import { useDates } from '../../ui/dates';
import { addTodo, editTodo, parseTodos, removeTodo, todoStorageKey, type Todo } from './todos';
import './todolist.css';

const newId = () => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`);

/** The list of the signed-in user in this browser's storage, written on every change and followed across tabs. */
function useStoredTodos(userId: number) {
  const key = todoStorageKey(userId);
  const [todos, setTodos] = useState<Todo[]>(() => parseTodos(localStorage.getItem(key)));
  useEffect(() => {
    setTodos(parseTodos(localStorage.getItem(key)));
    const onStorage = (e: StorageEvent) => e.key === key && setTodos(parseTodos(e.newValue));
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [key]);
  const change = (next: (list: Todo[]) => Todo[]) =>
    setTodos((list) => {
      const updated = next(list);
      if (updated !== list) localStorage.setItem(key, JSON.stringify(updated));
      return updated;
    });
  return { todos, change };
}

/** The personal to-do list (spec 002 §2): add, edit, remove; kept only in this browser. */
export default function TodoList() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const { todos, change } = useStoredTodos(user?.id ?? 0);
  const [text, setText] = useState('');
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);

  const add = (e: FormEvent) => {
    e.preventDefault();
    change((list) => addTodo(list, text, new Date().toISOString(), newId()));
    setText('');
  };
  const saveEdit = (e: FormEvent) => {
    e.preventDefault();
    if (!editing) return;
    const { id, text: edited } = editing;
    change((list) => editTodo(list, id, edited, new Date().toISOString()));
    setEditing(null);
  };

  return (
    <Flex direction="column" gap="1rem" className="page todo-page">
      <Heading level={3}>{t('todolist.title')}</Heading>
      <form onSubmit={add} className="todo-add">
        <TextField label={t('todolist.newTask')} labelHidden placeholder={t('todolist.placeholder')} value={text} onChange={(e) => setText(e.target.value)} maxLength={1000} flex="1" />
        <Button type="submit" variation="primary">
          {t('common.add')}
        </Button>
      </form>
      {todos.length === 0 && <Text color="font.secondary">{t('todolist.empty')}</Text>}
      <ul className="todo-list" aria-label={t('todolist.title')}>
        {todos.map((todo) => (
          <li key={todo.id} className="todo-item" data-testid="todo-item">
            {editing?.id === todo.id ? (
              <form onSubmit={saveEdit} className="todo-edit">
                <TextField label={t('todolist.editTask')} labelHidden autoFocus value={editing.text} onChange={(e) => setEditing({ id: todo.id, text: e.target.value })} maxLength={1000} flex="1" />
                <Button type="submit" size="small" variation="primary">
                  {t('common.save')}
                </Button>
                <Button type="button" size="small" onClick={() => setEditing(null)}>
                  {t('common.cancel')}
                </Button>
              </form>
            ) : (
              <>
                <div className="todo-main">
                  <span className="todo-text">{todo.text}</span>
                  <span className="todo-dates">
                    {t('todolist.createdAt', { date: dates.dateTime(todo.createdAt) })}
                    {todo.updatedAt !== todo.createdAt && <> · {t('todolist.updatedAt', { date: dates.dateTime(todo.updatedAt) })}</>}
                  </span>
                </div>
                <Flex gap="0.25rem">
                  <Button size="small" variation="link" onClick={() => setEditing({ id: todo.id, text: todo.text })} aria-label={`${t('common.edit')} ${todo.text}`}>
                    {t('common.edit')}
                  </Button>
                  <Button size="small" variation="link" colorTheme="error" onClick={() => change((list) => removeTodo(list, todo.id))} aria-label={`${t('common.delete')} ${todo.text}`}>
                    {t('common.delete')}
                  </Button>
                </Flex>
              </>
            )}
          </li>
        ))}
      </ul>
    </Flex>
  );
}
