import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { companyEvent, isAdminProfile, SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDebounced } from '../../ui/hooks';
import { useLiveList } from '../../ui/useLiveList';
import { EmptyRow, RowActions } from '../../ui/TableParts';
import { toast } from '../../ui/toast';
import TagDialog from './TagDialog';
import { TagChip, type Tag, type TagCounts } from './tag';
import './tags.css';

const matches = (tag: Tag, term: string) => !term || tag.name.toLowerCase().includes(term);
/** A row's counts: those of the newest version, the row's own (a page or tag event) or a `counts` event's. */
const countsOf = (tag: Tag, live: TagCounts | undefined) => (live && live.countsVersion > (tag.countsVersion ?? -1) ? live : tag);

/** Tags page (spec 001 §3): search, add, table of id, chip, count and actions. */
export default function Tags() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const canKanban = isAdminProfile(me?.profile) || !!me?.super;
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim().toLowerCase(), SEARCH_DEBOUNCE_MS);
  const { items: tags, loading, scroller, onScroll, upsert, removeById } = useLiveList<Tag>({
    path: '/tags',
    itemsKey: 'tags',
    searchParam,
    event: 'tag',
    fromEvent: (data) => (data?.action === 'delete' ? { remove: Number(data.tagId) } : data?.tag ? { item: data.tag as Tag, created: data.action === 'create' } : null),
    matches,
    addOnlyCreated: true,
  });
  // Counts changed by tagging elsewhere (a ticket's tags bar, the contact dialog): the newest per tag.
  const [liveCounts, setLiveCounts] = useState<Map<number, TagCounts>>(() => new Map());
  useEffect(() => {
    if (!me) return;
    return realtime.on(companyEvent(me.companyId, 'tag'), (data) => {
      if (data?.action !== 'counts' || !Array.isArray(data.counts)) return;
      setLiveCounts((prev) => {
        const next = new Map(prev);
        for (const c of data.counts as TagCounts[]) if ((next.get(c.id)?.countsVersion ?? -1) < c.countsVersion) next.set(c.id, c);
        return next;
      });
    });
  }, [me]);
  const [dialog, setDialog] = useState<{ tag: Tag | null } | null>(null);
  const [deleting, setDeleting] = useState<Tag | null>(null);

  const remove = async (tag: Tag) => {
    try {
      await api.del(`/tags/${tag.id}`);
      removeById(tag.id);
      toast.success(t('tags.deleted'));
    } catch (e) {
      toastError(e);
    }
  };


  return (
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('tags.title')}</Heading>
        <Flex gap="0.5rem" alignItems="center" wrap="wrap">
          <TextField label={t('common.search')} labelHidden placeholder={t('tags.searchPlaceholder')} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          <Button variation="primary" onClick={() => setDialog({ tag: null })}>
            {t('tags.add')}
          </Button>
        </Flex>
      </Flex>
      <div className="table-scroll" ref={scroller} onScroll={onScroll} data-testid="tags-scroll">
        <Table highlightOnHover size="small" className="data-table">
          <TableHead>
            <TableRow>
              <TableCell as="th" className="id-col">{t('tags.id')}</TableCell>
              <TableCell as="th">{t('tags.tag')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('tags.type')}</TableCell>
              <TableCell as="th">{t('tags.count')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {tags.map((tag) => {
              const counts = countsOf(tag, liveCounts.get(tag.id));
              return (
                <TableRow key={tag.id} data-testid={`tag-row-${tag.id}`}>
                  <TableCell className="id-col">{tag.id}</TableCell>
                  <TableCell>
                    <TagChip tag={tag} />
                    {tag.kanban === 1 && <span className="tg-kanban">{t('tags.kanban')}</span>}
                  </TableCell>
                  <TableCell className="hide-narrow">{t(`tags.types.${tag.type}`)}</TableCell>
                  <TableCell>
                    {tag.type === 'contact' ? (
                      // Spec 001 §3: a contact tag's count opens the contacts carrying it.
                      <Link className="tg-count" data-testid="tag-count" to={`/contacts?tag=${tag.id}`} aria-label={t('tags.contactsLink', { count: counts.contactsCount, name: tag.name })}>
                        {counts.contactsCount}
                      </Link>
                    ) : (
                      <span data-testid="tag-count">{counts.ticketsCount}</span>
                    )}
                  </TableCell>
                  <RowActions name={tag.name} onEdit={() => setDialog({ tag })} onDelete={() => setDeleting(tag)} />
                </TableRow>
              );
            })}
            <EmptyRow show={!loading && tags.length === 0} colSpan={5} />
          </TableBody>
        </Table>
        {loading && <Loader variation="linear" />}
      </div>
      {dialog && <TagDialog tag={dialog.tag} canKanban={canKanban} onClose={() => setDialog(null)} onSaved={(x) => upsert(x)} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('tags.deleteTitle', { name: deleting.name }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
