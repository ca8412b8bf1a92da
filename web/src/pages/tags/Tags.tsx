import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import { companyEvent, isAdminProfile } from '@balcao/shared';
import { realtime } from '../../api/realtime';
import { tagsApi } from '../../api/tags';
import { useAuth } from '../../auth/AuthContext';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
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
  const live = useLiveTable<Tag>({ api: tagsApi, itemsKey: 'tags', event: 'tag', eventNames: ['tagId', 'tag'], matches, addOnlyCreated: true, texts: 'tags' });
  const { items: tags, actions } = live;
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
  return (
    <EntityTablePage
      texts="tags" live={live} add nameOf={(tag) => tag.name}
      columns={[['id', 'id-col'], 'tag', ['type', 'hide-narrow'], 'count']}
      dialogs={actions.editing && <TagDialog tag={actions.editing.item} canKanban={canKanban} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
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
            <RowActions name={tag.name} onEdit={() => actions.edit(tag)} onDelete={() => actions.askDelete(tag)} />
          </TableRow>
        );
      })}
    </EntityTablePage>
  );
}
