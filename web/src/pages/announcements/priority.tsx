import { useTranslation } from 'react-i18next';
import './priority.css';

/** Spec 002 §9: high red, medium orange, low grey. */
const PRIORITY_CLASS: Record<number, string> = { 1: 'ann-high', 2: 'ann-medium', 3: 'ann-low' };

/** An announcement's priority as a coloured label ('Alta', 'Média', 'Baixa'). */
export function PriorityBadge({ priority }: { priority: number }) {
  const { t } = useTranslation();
  return (
    <span className={`ann-priority ${PRIORITY_CLASS[priority] ?? 'ann-low'}`} data-testid="announcement-priority">
      {t(`announcements.priority${priority}`)}
    </span>
  );
}
