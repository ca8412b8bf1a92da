import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Text } from '@aws-amplify/ui-react';
import { api, ApiError } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { DialogFooter } from '../../../ui/DialogFooter';
import { Modal } from '../../../ui/Modal';
import { useBusy } from '../../../ui/useBusy';
import type { ApiTicket, TagRef } from '../types';
import { CIcon } from './icons';
import { call } from '../../../api/call';

type Kind = 'ticket' | 'contact';

/** The company's tags of one type, or null when the tags routes are not there (read-only chips). */
function useTagList(kind: Kind) {
  const [tags, setTags] = useState<TagRef[] | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    api
      .get<TagRef[]>('/tags/list', { query: { type: kind } })
      .then((r) => live && setTags(Array.isArray(r) ? r : []))
      .catch((err) => {
        if (!live) return;
        setTags(null);
        if (!(err instanceof ApiError && err.status === 404)) toastError(err);
      });
    return () => {
      live = false;
    };
  }, [kind]);
  return tags;
}

function Chip({ tag }: { tag: TagRef }) {
  return (
    <span className="tag-chip" style={{ background: tag.color }} data-testid="tag-chip">
      {tag.name}
    </span>
  );
}

function TagGroup({ kind, ticket, ids, resolved, onSaved }: { kind: Kind; ticket: ApiTicket; ids: number[]; resolved?: TagRef[]; onSaved: (tags: TagRef[]) => void }) {
  const { t } = useTranslation();
  const all = useTagList(kind);
  // The ticket view names its tags by id; the company's list gives them a name and colour.
  const current = resolved ?? (all ?? []).filter((x) => ids.includes(x.id));
  const [editing, setEditing] = useState(false);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const { busy: saving, run } = useBusy();
  const label = t(kind === 'ticket' ? 'ticket.ticketTags' : 'ticket.contactTags');

  const open = () => {
    setChosen(new Set(current.map((x) => x.id)));
    setEditing(true);
  };
  const save = () =>
    run(async () => {
      await call('POST /tags/sync', { body: { ticketId: ticket.id, tags: [...chosen].map((id) => ({ id })), type: kind } });
      onSaved((all ?? []).filter((x) => chosen.has(x.id)));
      setEditing(false);
    });

  return (
    <div className="tags-group" data-testid={`tags-${kind}`}>
      <span className="tags-label">{label}:</span>
      {current.length ? current.map((tag) => <Chip key={tag.id} tag={tag} />) : <span className="tags-none">{t('ticket.noTags')}</span>}
      {all && (
        <button type="button" className="icon-btn small" onClick={open} aria-label={`${t('ticket.editTags')}: ${label}`} title={t('ticket.editTags')}>
          <CIcon name="tag" size={16} />
        </button>
      )}
      <Modal open={editing} title={label} onClose={() => setEditing(false)}>
        <div className="tags-editor">
          {(all ?? []).length === 0 && <Text color="font.secondary">{t('common.noRecords')}</Text>}
          {(all ?? []).map((tag) => {
            const on = chosen.has(tag.id);
            return (
              <button
                key={tag.id}
                type="button"
                className={`chip${on ? ' chip-on' : ''}`}
                style={{ borderColor: tag.color, background: on ? tag.color : undefined }}
                aria-pressed={on}
                onClick={() =>
                  setChosen((s) => {
                    const n = new Set(s);
                    if (n.has(tag.id)) n.delete(tag.id);
                    else n.add(tag.id);
                    return n;
                  })
                }
              >
                {tag.name}
              </button>
            );
          })}
        </div>
        <DialogFooter onCancel={() => setEditing(false)} busy={saving} marginTop="1rem" onSubmit={() => void save()} />
      </Modal>
    </div>
  );
}

/** Ticket tags and contact tags (spec 001 §2), each with its editor when the tags routes answer. */
export function TagsBar({ ticket, onChange }: { ticket: ApiTicket; onChange: (patch: Partial<ApiTicket>) => void }) {
  return (
    <div className="tags-bar">
      <TagGroup kind="ticket" ticket={ticket} ids={ticket.tagIds ?? []} resolved={ticket.tags} onSaved={(tags) => onChange({ tags, tagIds: tags.map((x) => x.id) })} />
      <TagGroup
        kind="contact"
        ticket={ticket}
        ids={ticket.contact?.tagIds ?? []}
        resolved={ticket.contact?.tags}
        onSaved={(tags) => ticket.contact && onChange({ contact: { ...ticket.contact, tags, tagIds: tags.map((x) => x.id) } })}
      />
    </div>
  );
}
