import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDismiss } from './hooks';

export interface Option {
  id: number;
  name: string;
  color?: string;
}

/**
 * A compact multi-select (checkbox list in a dropdown) for the panel's filters: queues (with the
 * spec's Todos / Nenhum), ticket and contact tags, users.
 */
export function MultiSelect({
  label,
  options,
  value,
  onChange,
  allNone,
  testId,
}: {
  label: string;
  options: Option[];
  value: number[];
  onChange: (ids: number[]) => void;
  allNone?: boolean;
  testId: string;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const id = useId();

  useDismiss(box, open, () => setOpen(false));

  const summary =
    // No queue at all filters nothing: "Todos", not "Nenhum".
    allNone && value.length === options.length
      ? t('tickets.all')
      : value.length === 0
        ? allNone
          ? t('common.none')
          : t('tickets.any')
        : value.length === 1
          ? (options.find((o) => o.id === value[0])?.name ?? '1')
          : t('tickets.selected', { count: value.length });

  const toggle = (oid: number) => onChange(value.includes(oid) ? value.filter((x) => x !== oid) : [...value, oid]);

  return (
    <div className="msel" ref={box} data-testid={testId}>
      <button type="button" className="msel-btn" aria-haspopup="listbox" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        <span className="msel-label">{label}</span>
        <span className="msel-value">{summary}</span>
      </button>
      {open && (
        <div className="msel-panel" id={id} role="listbox" aria-multiselectable="true" aria-label={label}>
          {allNone && (
            <div className="msel-actions">
              <button type="button" onClick={() => onChange(options.map((o) => o.id))}>
                {t('tickets.all')}
              </button>
              <button type="button" onClick={() => onChange([])}>
                {t('common.none')}
              </button>
            </div>
          )}
          {options.length === 0 && <div className="msel-empty">{t('common.noRecords')}</div>}
          {options.map((o) => (
            <label key={o.id} className="msel-option" role="option" aria-selected={value.includes(o.id)}>
              <input type="checkbox" checked={value.includes(o.id)} onChange={() => toggle(o.id)} />
              {o.color && <span className="msel-swatch" style={{ background: o.color }} />}
              <span>{o.name}</span>
            </label>
          ))}
        </div>
      )}
    </div>
  );
}
