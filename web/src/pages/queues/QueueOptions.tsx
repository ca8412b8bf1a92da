import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Loader, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { FORM_VALIDATIONS, QUEUE_OPTION_DEPTH_MAX, queueOptionSchema, type Queue, type QueueOption, type QueueType } from '@balcao/shared';
import { toastError } from '../../api/errors';
import { queueOptionsApi } from '../../api/queueOptions';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { CheckField, choicesOf, ControlledSelect, Select } from '../../ui/fields';
import { Icon, PathIcon } from '../../ui/icons';
import { toast } from '../../ui/toast';
import { useEntityForm } from '../../ui/useEntityForm';
import './queue-options.css';

// This chunk's own icons (the shell's set stays small).
const ICONS = {
  expand: 'M16.59 8.59 12 13.17 7.41 8.59 6 10l6 6 6-6z',
  collapsed: 'M10 6 8.59 7.41 13.17 12l-4.58 4.59L10 18l6-6z',
  up: 'M4 12l1.41 1.41L11 7.83V20h2V7.83l5.58 5.59L20 12l-8-8-8 8z',
  down: 'M20 12l-1.41-1.41L13 16.17V4h-2v12.17l-5.58-5.59L4 12l8 8 8-8z',
  addChild: 'M14 10H2v2h12v-2zm0-4H2v2h12V6zm4 8v-4h-2v4h-4v2h4v4h2v-4h4v-2h-4zM2 16h8v-2H2v2z',
};

/** A level of the tree by its parent (`root` for the top). */
type LevelKey = number | 'root';
const keyOf = (parentId: number | null): LevelKey => parentId ?? 'root';
const byNumber = (a: QueueOption, b: QueueOption) => Number(a.option) - Number(b.option) || a.id - b.id;

/** What the editor is open on: an option, or a new one under `parentId`. */
type Editing = { id: number } | { parentId: number | null } | null;

/** Puts the focus back on a control of the tree once React has drawn it (keyboard users keep their place). */
const focusLater = (testId: string) =>
  requestAnimationFrame(() => (document.querySelector(`[data-testid="${testId}"]`) as HTMLElement | null)?.focus());

/**
 * The options tree of a saved queue (spec 003 §2, server-behaviour §4): the menu the bot walks
 * (TEXT) or the fields it asks (FORM). Levels load as they are opened; each option is saved,
 * renumbered (up/down swap numbers with the neighbour) and deleted (with everything under it) at once.
 */
export default function QueueOptions({ queue, type, queues }: { queue: Queue; type: QueueType; queues: readonly Queue[] }) {
  const { t } = useTranslation();
  const form = type === 'FORM';
  const [levels, setLevels] = useState<Partial<Record<LevelKey, QueueOption[]>>>({});
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<QueueOption | null>(null);
  const [moving, setMoving] = useState(false);

  const load = async (parentId: number | null) => {
    try {
      const list = await queueOptionsApi.level(queue.id, parentId);
      setLevels((l) => ({ ...l, [keyOf(parentId)]: list }));
    } catch (e) {
      toastError(e);
    }
  };
  useEffect(() => {
    void load(null);
  }, [queue.id]);

  const setLevel = (parentId: number | null, change: (list: QueueOption[]) => QueueOption[]) =>
    setLevels((l) => ({ ...l, [keyOf(parentId)]: change(l[keyOf(parentId)] ?? []).sort(byNumber) }));
  /** The parent's count of children, as its row shows it. */
  const countChildren = (parentId: number | null, delta: number) => {
    if (parentId === null) return;
    setLevels((l) => {
      const next = { ...l };
      for (const [k, list] of Object.entries(l)) {
        if (list?.some((o) => o.id === parentId)) next[k as unknown as LevelKey] = list.map((o) => (o.id === parentId ? { ...o, children: Math.max(0, o.children + delta) } : o));
      }
      return next;
    });
  };

  const toggle = (o: QueueOption) => {
    const opening = !open.has(o.id);
    setOpen((s) => {
      const n = new Set(s);
      if (opening) n.add(o.id);
      else n.delete(o.id);
      return n;
    });
    if (opening && !levels[o.id]) void load(o.id);
  };

  const startAdd = (parentId: number | null) => {
    if (parentId !== null && !open.has(parentId)) {
      setOpen((s) => new Set(s).add(parentId));
      if (!levels[parentId]) void load(parentId);
    }
    setEditing({ parentId });
  };

  const saved = (o: QueueOption, created: boolean) => {
    setLevel(o.parentId, (list) => [...list.filter((x) => x.id !== o.id), o]);
    if (created) countChildren(o.parentId, 1);
    setEditing(null);
    focusLater(`queue-option-edit-${o.id}`);
  };

  const cancel = (e: Editing) => {
    setEditing(null);
    if (e && 'id' in e) focusLater(`queue-option-edit-${e.id}`);
    else focusLater(e?.parentId ? `queue-option-add-${e.parentId}` : 'queue-option-add-root');
  };

  const remove = async (o: QueueOption) => {
    try {
      await queueOptionsApi.remove(o.id);
    } catch (e) {
      toastError(e);
      return;
    }
    setLevel(o.parentId, (list) => list.filter((x) => x.id !== o.id));
    countChildren(o.parentId, -1);
    setOpen((s) => {
      const n = new Set(s);
      n.delete(o.id);
      return n;
    });
    toast.success(t('queueOptions.deleted'));
    focusLater(o.parentId ? `queue-option-edit-${o.parentId}` : 'queue-option-add-root');
  };

  /**
   * Swaps the numbers of two neighbours: the first goes to a free number for a moment (numbers
   * are unique among siblings), the second takes its number, the first the second's.
   */
  const move = async (list: QueueOption[], index: number, dir: -1 | 1) => {
    const a = list[index];
    const b = list[index + dir];
    if (!a || !b) return;
    const used = new Set(list.map((o) => o.option));
    let spare = 999;
    while (used.has(String(spare))) spare--;
    setMoving(true);
    let parked = false;
    try {
      await queueOptionsApi.update(a.id, { option: String(spare) });
      parked = true;
      const nb = await queueOptionsApi.update(b.id, { option: a.option });
      const na = await queueOptionsApi.update(a.id, { option: b.option });
      setLevel(a.parentId, (l) => l.map((o) => (o.id === na.id ? na : o.id === nb.id ? nb : o)));
    } catch (e) {
      toastError(e);
      // Left on the spare number, the option goes back to its own when that is still free.
      if (parked) await queueOptionsApi.update(a.id, { option: a.option }).catch(() => undefined);
      await load(a.parentId);
    } finally {
      setMoving(false);
    }
    // At the ends of the list the button it pressed is gone: the other one keeps the focus.
    const edge = (dir === -1 && index + dir === 0) || (dir === 1 && index + dir === list.length - 1);
    focusLater(`queue-option-${edge ? (dir === -1 ? 'down' : 'up') : dir === -1 ? 'up' : 'down'}-${a.id}`);
  };

  const nextNumber = (parentId: number | null) => {
    const list = levels[keyOf(parentId)] ?? [];
    const max = Math.max(0, ...list.map((o) => Number(o.option)));
    if (max < 999) return String(max + 1);
    const used = new Set(list.map((o) => o.option));
    for (let n = 1; n <= 999; n++) if (!used.has(String(n))) return String(n);
    return '';
  };

  const queueName = (id: number | null) => queues.find((q) => q.id === id)?.name;

  const renderLevel = (parentId: number | null, depth: number) => {
    const list = levels[keyOf(parentId)];
    const adding = editing && 'parentId' in editing && editing.parentId === parentId;
    if (!list) return <Loader variation="linear" />;
    return (
      <ul className="qo-level" id={`queue-option-children-${parentId ?? 'root'}`} data-testid={parentId ? `queue-option-children-${parentId}` : 'queue-options-root'}>
        {list.map((o, i) => {
          const isOpen = open.has(o.id);
          const canNest = !form && depth < QUEUE_OPTION_DEPTH_MAX;
          return (
            <li key={o.id} className="qo-node" data-testid={`queue-option-${o.id}`} data-option={o.option}>
              <div className="qo-row">
                {o.children > 0 ? (
                  <button
                    type="button"
                    className="icon-btn qo-toggle"
                    aria-expanded={isOpen}
                    aria-controls={`queue-option-children-${o.id}`}
                    aria-label={t(isOpen ? 'queueOptions.collapse' : 'queueOptions.expand', { title: o.title })}
                    onClick={() => toggle(o)}
                    data-testid={`queue-option-toggle-${o.id}`}
                  >
                    <PathIcon d={isOpen ? ICONS.expand : ICONS.collapsed} size={20} />
                  </button>
                ) : (
                  <span className="qo-toggle" aria-hidden="true" />
                )}
                <span className="qo-number" aria-label={t('queueOptions.numberIs', { option: o.option })}>
                  {o.option}
                </span>
                <span className="qo-title">
                  <span className="qo-title-text">{o.title}</span>
                  <span className="qo-details">
                    {o.children > 0 && <span>{t('queueOptions.children', { count: o.children })}</span>}
                    {!form && o.transferToQueueId && <span>{t('queueOptions.transfersTo', { queue: queueName(o.transferToQueueId) ?? `#${o.transferToQueueId}` })}</span>}
                    {form && o.fieldName && <span>{t('queueOptions.fieldIs', { field: o.fieldName })}</span>}
                    {form && o.isValidationField && <span>{t('queueOptions.validated', { kind: t(`queueOptions.validations.${o.validation ?? 'auto'}`) })}</span>}
                  </span>
                </span>
                <span className="qo-actions">
                  {i > 0 && (
                    <button type="button" className="icon-btn" disabled={moving} aria-label={t('queueOptions.moveUp', { title: o.title })} onClick={() => void move(list, i, -1)} data-testid={`queue-option-up-${o.id}`}>
                      <PathIcon d={ICONS.up} size={18} />
                    </button>
                  )}
                  {i < list.length - 1 && (
                    <button type="button" className="icon-btn" disabled={moving} aria-label={t('queueOptions.moveDown', { title: o.title })} onClick={() => void move(list, i, 1)} data-testid={`queue-option-down-${o.id}`}>
                      <PathIcon d={ICONS.down} size={18} />
                    </button>
                  )}
                  {canNest && (
                    <button type="button" className="icon-btn" aria-label={t('queueOptions.addChildOf', { title: o.title })} onClick={() => startAdd(o.id)} data-testid={`queue-option-add-${o.id}`}>
                      <PathIcon d={ICONS.addChild} size={20} />
                    </button>
                  )}
                  <button type="button" className="icon-btn" aria-label={t('queueOptions.editOf', { title: o.title })} onClick={() => setEditing({ id: o.id })} data-testid={`queue-option-edit-${o.id}`}>
                    <Icon name="edit" size={18} />
                  </button>
                  <button type="button" className="icon-btn danger" aria-label={t('queueOptions.deleteOf', { title: o.title })} onClick={() => setDeleting(o)} data-testid={`queue-option-delete-${o.id}`}>
                    <Icon name="delete" size={18} />
                  </button>
                </span>
              </div>
              {editing && 'id' in editing && editing.id === o.id && (
                <OptionEditor queue={queue} form={form} queues={queues} option={o} parentId={o.parentId} onSaved={(x) => saved(x, false)} onCancel={() => cancel(editing)} />
              )}
              {(isOpen || (editing && 'parentId' in editing && editing.parentId === o.id)) && renderLevel(o.id, depth + 1)}
            </li>
          );
        })}
        {adding && (
          <li className="qo-node">
            <OptionEditor queue={queue} form={form} queues={queues} parentId={parentId} number={nextNumber(parentId)} onSaved={(x) => saved(x, true)} onCancel={() => cancel(editing)} />
          </li>
        )}
        {list.length === 0 && !adding && parentId === null && (
          <li className="qo-empty" data-testid="queue-options-empty">
            {t(form ? 'queueOptions.emptyForm' : 'queueOptions.empty')}
          </li>
        )}
      </ul>
    );
  };

  return (
    <div className="queue-options" data-testid="queue-options">
      <Text color="font.secondary" fontSize="small" marginBottom="0.5rem">
        {t(form ? 'queueOptions.hintForm' : 'queueOptions.hint')}
      </Text>
      {renderLevel(null, 1)}
      {!(editing && 'parentId' in editing && editing.parentId === null) && (
        <Button size="small" marginTop="0.5rem" onClick={() => startAdd(null)} data-testid="queue-option-add-root" gap="0.35rem">
          <Icon name="add" size={18} />
          {t(form ? 'queueOptions.addField' : 'queueOptions.addRoot')}
        </Button>
      )}
      <ConfirmDialog
        open={!!deleting}
        title={t('queueOptions.deleteTitle', { title: deleting?.title ?? '' })}
        message={deleting && deleting.children > 0 ? t('queueOptions.deleteWithChildren', { count: deleting.children }) : t('queueOptions.deleteConfirm')}
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      />
    </div>
  );
}

interface Values {
  queueId: number;
  parentId: string;
  option: string;
  title: string;
  message: string;
  fieldName: string;
  isValidationField: boolean;
  validation: string;
  transferToQueueId: string;
}

const FIELDS = ['option', 'title', 'message', 'fieldName', 'isValidationField', 'validation', 'transferToQueueId'] as const;

/** One option's form, in place in the tree: a new option under `parentId`, or `option` edited. */
function OptionEditor({
  queue,
  form: isForm,
  queues,
  option,
  parentId,
  number,
  onSaved,
  onCancel,
}: {
  queue: Queue;
  form: boolean;
  queues: readonly Queue[];
  option?: QueueOption;
  parentId: number | null;
  number?: string;
  onSaved: (o: QueueOption) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const entity = useEntityForm<Values, QueueOption>({
    schema: queueOptionSchema,
    defaultValues: {
      queueId: queue.id,
      parentId: parentId ? String(parentId) : '',
      option: option?.option ?? number ?? '',
      title: option?.title ?? '',
      message: option?.message ?? '',
      fieldName: option?.fieldName ?? '',
      isValidationField: option?.isValidationField ?? false,
      validation: option?.validation ?? '',
      transferToQueueId: option?.transferToQueueId ? String(option.transferToQueueId) : '',
    },
    fields: FIELDS,
    save: (v) => {
      // What the queue's type shows is what is sent: a menu item's transfer, or a field's settings.
      const body = {
        option: v.option,
        title: v.title,
        message: v.message ?? '',
        ...(isForm
          ? { fieldName: v.fieldName || null, isValidationField: !!v.isValidationField, validation: v.isValidationField ? v.validation || null : null }
          : { transferToQueueId: v.transferToQueueId ? Number(v.transferToQueueId) : null }),
      };
      return option ? queueOptionsApi.update(option.id, body) : queueOptionsApi.create({ ...body, queueId: queue.id, parentId });
    },
    savedText: t('queueOptions.saved'),
    onSaved,
    onClose: () => {},
    toastRefusal: 'unmatched',
  });
  const { form, field, error, errors } = entity;
  const validating = form.watch('isValidationField');
  const id = option ? option.id : `new-${parentId ?? 'root'}`;
  return (
    <form
      className="qo-editor"
      onSubmit={entity.onSubmit}
      noValidate
      data-testid={`queue-option-editor-${id}`}
      aria-label={option ? t('queueOptions.editOf', { title: option.title }) : t(isForm ? 'queueOptions.addField' : parentId ? 'queueOptions.addChild' : 'queueOptions.addRoot')}
      // Esc closes this editor, not the queue dialog around it.
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        onCancel();
      }}
    >
      <div className="qo-editor-grid">
        <TextField label={t(isForm ? 'queueOptions.order' : 'queueOptions.option')} inputMode="numeric" maxLength={3} autoComplete="off" {...field('option')} />
        <TextField label={t(isForm ? 'queueOptions.fieldTitle' : 'queueOptions.title')} autoFocus maxLength={100} {...field('title')} />
      </div>
      <TextAreaField
        label={t(isForm ? 'queueOptions.question' : 'queueOptions.message')}
        rows={3}
        descriptiveText={t(isForm ? 'queueOptions.questionHint' : 'queueOptions.messageHint')}
        {...field('message')}
      />
      {isForm ? (
        <div className="form-grid align-end">
          <TextField label={t('queueOptions.fieldName')} maxLength={50} descriptiveText={t('queueOptions.fieldNameHint')} {...field('fieldName')} />
          <CheckField control={form.control} name="isValidationField" label={t('queueOptions.isValidationField')} error={error('isValidationField')} />
          {validating && (
            <Select
              label={t('queueOptions.validation')}
              {...field('validation')}
              empty={t('queueOptions.validations.auto')}
              choices={FORM_VALIDATIONS.map((v) => ({ value: v, label: t(`queueOptions.validations.${v}`) }))}
            />
          )}
        </div>
      ) : (
        <ControlledSelect
          control={form.control}
          name="transferToQueueId"
          label={t('queueOptions.transferTo')}
          empty={t('queueOptions.noTransfer')}
          choices={choicesOf(queues.filter((q) => q.id !== queue.id))}
          descriptiveText={t('queueOptions.transferHint')}
          hasError={!!errors.transferToQueueId}
          errorMessage={error('transferToQueueId')}
        />
      )}
      <Flex justifyContent="flex-end" gap="0.5rem">
        <Button size="small" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button size="small" type="submit" variation="primary" isLoading={entity.submitting} data-testid="queue-option-save">
          {t('queueOptions.save')}
        </Button>
      </Flex>
    </form>
  );
}
