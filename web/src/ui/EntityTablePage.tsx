import type { ReactNode, RefObject, UIEventHandler } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { ConfirmDialog } from './ConfirmDialog';
import { EmptyRow } from './TableParts';
import type { RowActionsState } from './useRowActions';
import type { LiveTable } from './useLiveTable';

export interface Column {
  label: ReactNode;
  className?: string;
  /** Left out when false (a column only some profiles see). */
  show?: boolean;
}

/** A table's scroller (infinite scroll: `useLiveList`, `useInfiniteScroll`) and its test id. */
export interface Scroll {
  scroller?: RefObject<HTMLDivElement | null>;
  onScroll?: UIEventHandler<HTMLDivElement>;
  testId?: string;
}

/** A data table: header cells from `columns`, the rows, the empty row and a loader under them. */
export function EntityTable({
  columns,
  loading,
  empty,
  scroll,
  className,
  highlight = true,
  children,
}: {
  columns: Column[];
  loading: boolean;
  /** Whether there is nothing to list; leave out for tables without an empty row. */
  empty?: boolean;
  scroll?: Scroll;
  className?: string;
  highlight?: boolean;
  children: ReactNode;
}) {
  const shown = columns.filter((c) => c.show !== false);
  return (
    <div className="table-scroll" ref={scroll?.scroller} onScroll={scroll?.onScroll} data-testid={scroll?.testId}>
      <Table highlightOnHover={highlight} size="small" className={className ? `data-table ${className}` : 'data-table'}>
        <TableHead>
          <TableRow>
            {shown.map((c, i) => (
              <TableCell as="th" key={i} className={c.className}>
                {c.label}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {children}
          {empty !== undefined && <EmptyRow show={!loading && empty} colSpan={shown.length} />}
        </TableBody>
      </Table>
      {loading && <Loader variation="linear" />}
    </div>
  );
}

/** The search box of a page's header (its label is read by screen readers only). */
export function SearchBox({ value, onChange, placeholder, className }: { value: string; onChange: (v: string) => void; placeholder: string; className?: string }) {
  const { t } = useTranslation();
  return <TextField label={t('common.search')} labelHidden placeholder={placeholder} type="search" value={value} onChange={(e) => onChange(e.target.value)} className={className} />;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A column: its text's key under the page's `texts` (`'email'`), with a class (`['email', 'hide-narrow']`), or spelled out. */
export type ColumnSpec = string | [key: string, className: string] | Column;

interface PageProps<T> extends Omit<Parameters<typeof EntityTable>[0], 'columns' | 'loading'> {
  /** The page's texts in the catalogues (`users`): `<texts>.title`, `.searchPlaceholder`, `.add`, `.deleteTitle`, the columns. */
  texts?: string;
  columns: ColumnSpec[];
  /** The actions column last (`common.actions`); false to leave it out. */
  actionsColumn?: boolean;
  loading?: boolean;
  /** The live list of `useLiveTable`: search, rows, loading, scroll and actions. */
  live?: LiveTable<T & { id: number }>;
  /** `<texts in kebab case>-scroll` unless given. */
  scrollTestId?: string;
  /** The title; `<texts>.title` unless given, none in a tab. */
  title?: ReactNode;
  /** The header's right side when it is more than search and add (filters). */
  tools?: ReactNode;
  /** Between the header and the table (a row of page actions). */
  below?: ReactNode;
  pageClassName?: string;
  search?: { value: string; onChange: (v: string) => void; placeholder: string };
  /** Whether to show the add button (`<texts>.add`), or its own text. */
  add?: boolean | string;
  actions?: RowActionsState<T>;
  /** What names a row in the delete confirmation's title (`<texts>.deleteTitle`). */
  nameOf?: (item: T) => string;
  deleteTitle?: (item: T) => string;
  deleteMessage?: string;
  dialogs?: ReactNode;
  /** Inside the settings tabs: no title, tighter spacing. */
  tab?: boolean;
}

/**
 * A page of entities: header (title, search with its debounce, add), the table (infinite scroll,
 * live rows, empty state), the add/edit dialogs and the delete confirmation.
 */
export function EntityTablePage<T>(p: PageProps<T>) {
  const { t } = useTranslation();
  const { texts, live, tab } = p;
  const key = (k: string) => t(`${texts}.${k}`);
  const actions = (p.actions ?? live?.actions) as RowActionsState<T>;
  const search = p.search ?? (live && { ...live.search, placeholder: key('searchPlaceholder') });
  const addText = typeof p.add === 'string' ? p.add : p.add ? key('add') : undefined;
  const deleteTitle = p.deleteTitle ?? ((item: T) => t(`${texts}.deleteTitle`, { name: p.nameOf?.(item) }));
  const columns: Column[] = [
    ...p.columns.map((c) => (typeof c === 'string' ? { label: key(c) } : Array.isArray(c) ? { label: key(c[0]), className: c[1] } : c)),
    { label: t('common.actions'), className: 'actions-col', show: p.actionsColumn ?? true },
  ];
  const tools = p.tools ?? (
    <>
      {search && <SearchBox {...search} />}
      {addText && (
        <Button variation="primary" onClick={actions.add}>
          {addText}
        </Button>
      )}
    </>
  );
  return (
    <Flex direction="column" gap={tab ? '0.75rem' : '1rem'} className={tab ? undefined : p.pageClassName ? `page ${p.pageClassName}` : 'page'} paddingTop={tab ? '1rem' : undefined}>
      {tab ? (
        <Flex justifyContent={search ? 'space-between' : 'flex-end'} gap="0.5rem" wrap="wrap">
          {tools}
        </Flex>
      ) : (
        <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
          <Heading level={3}>{p.title ?? key('title')}</Heading>
          {search && !p.tools ? (
            <Flex gap="0.5rem" alignItems="center" wrap="wrap">
              {tools}
            </Flex>
          ) : (
            tools
          )}
        </Flex>
      )}
      {p.below}
      <EntityTable
        columns={columns}
        loading={p.loading ?? !!live?.loading}
        empty={p.empty ?? (live && live.items.length === 0)}
        scroll={p.scroll ?? (live && { scroller: live.scroller, onScroll: live.onScroll, testId: p.scrollTestId ?? `${kebab(texts ?? '')}-scroll` })}
        className={p.className}
        highlight={p.highlight}
      >
        {p.children}
      </EntityTable>
      {p.dialogs}
      <ConfirmDialog
        open={!!actions.deleting}
        title={actions.deleting ? deleteTitle(actions.deleting) : ''}
        message={p.deleteMessage}
        onClose={actions.cancelDelete}
        onConfirm={actions.confirmDelete}
      />
    </Flex>
  );
}
