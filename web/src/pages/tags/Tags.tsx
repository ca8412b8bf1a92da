import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { companyEvent, INFINITE_SCROLL_THRESHOLD_PX, isAdminProfile, SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDebounced } from '../../ui/hooks';
import { EmptyRow, RowActions } from '../../ui/TableParts';
import { toast } from '../../ui/toast';
import TagDialog from './TagDialog';
import { TagChip, type Tag } from './tag';
import './tags.css';

interface TagsPage {
  tags: Tag[];
  count: number;
  hasMore: boolean;
}

/** A late answer or event must not put back what a newer one replaced. */
const older = (incoming: Tag, known: Tag) => !!incoming.updatedAt && !!known.updatedAt && incoming.updatedAt < known.updatedAt;
const matches = (tag: Tag, term: string) => !term || tag.name.toLowerCase().includes(term);

/** Tags page (spec 001 §3): search, add, table of id, chip, count and actions. */
export default function Tags() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const canKanban = isAdminProfile(me?.profile) || !!me?.super;
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim().toLowerCase(), SEARCH_DEBOUNCE_MS);
  const [tags, setTags] = useState<Tag[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  const [dialog, setDialog] = useState<{ tag: Tag | null } | null>(null);
  const [deleting, setDeleting] = useState<Tag | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const term = useRef(searchParam);
  term.current = searchParam;

  useEffect(() => {
    setTags([]);
    setPage(1);
  }, [searchParam, reloadKey]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .get<TagsPage>('/tags', { query: { searchParam, pageNumber: page } })
      .then((r) => {
        if (!live) return;
        setTags((prev) => {
          // Keep the newer of each tag and the tags a live event added meanwhile.
          const known = new Map(prev.map((x) => [x.id, x]));
          const fresh = r.tags.map((x) => {
            const k = known.get(x.id);
            return k && older(x, k) ? k : x;
          });
          const freshIds = new Set(fresh.map((x) => x.id));
          if (page === 1) return [...prev.filter((x) => !freshIds.has(x.id)), ...fresh];
          return [...prev, ...fresh.filter((x) => !known.has(x.id))];
        });
        setHasMore(r.hasMore);
      })
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [searchParam, page, reloadKey]);

  useEffect(() => {
    if (!me) return;
    const off = realtime.on(companyEvent(me.companyId, 'tag'), (data) => {
      if (data?.action === 'delete') setTags((l) => l.filter((x) => x.id !== Number(data.tagId)));
      else if (data?.tag) {
        const tag = data.tag as Tag;
        setTags((l) =>
          l.some((x) => x.id === tag.id)
            ? l.map((x) => (x.id === tag.id && !older(tag, x) ? tag : x))
            : data.action === 'create' && matches(tag, term.current)
              ? [tag, ...l]
              : l,
        );
      }
    });
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      off();
      offR();
    };
  }, [me]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el || !hasMore || loading) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < INFINITE_SCROLL_THRESHOLD_PX) setPage((p) => p + 1);
  }, [hasMore, loading]);

  // A first page shorter than the viewport never scrolls: keep loading while there is room.
  useEffect(() => {
    const el = scroller.current;
    if (el && !loading && hasMore && el.scrollHeight <= el.clientHeight + INFINITE_SCROLL_THRESHOLD_PX) setPage((p) => p + 1);
  }, [tags, loading, hasMore]);

  const remove = async (tag: Tag) => {
    try {
      await api.del(`/tags/${tag.id}`);
      setTags((l) => l.filter((x) => x.id !== tag.id));
      toast.success(t('tags.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  const upsert = (tag: Tag) => setTags((l) => (l.some((x) => x.id === tag.id) ? l.map((x) => (x.id === tag.id && !older(tag, x) ? tag : x)) : [tag, ...l]));

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
            {tags.map((tag) => (
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
                    <Link className="tg-count" to={`/contacts?tag=${tag.id}`} aria-label={t('tags.contactsLink', { count: tag.contactsCount, name: tag.name })}>
                      {tag.contactsCount}
                    </Link>
                  ) : (
                    tag.ticketsCount
                  )}
                </TableCell>
                <RowActions name={tag.name} onEdit={() => setDialog({ tag })} onDelete={() => setDeleting(tag)} />
              </TableRow>
            ))}
            <EmptyRow show={!loading && tags.length === 0} colSpan={5} />
          </TableBody>
        </Table>
        {loading && <Loader variation="linear" />}
      </div>
      {dialog && <TagDialog tag={dialog.tag} canKanban={canKanban} onClose={() => setDialog(null)} onSaved={upsert} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('tags.deleteTitle', { name: deleting.name }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
