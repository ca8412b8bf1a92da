import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import { Icon } from './icons';

/** The edit and delete icon buttons of a table row, named after the row for screen readers; `children` come first. */
export function RowActions({ name, onEdit, onDelete, children }: { name: string; onEdit?: () => void; onDelete?: () => void; children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <TableCell className="actions-col">
      {children}
      {onEdit && (
        <button type="button" className="icon-btn" aria-label={`${t('common.edit')} ${name}`} onClick={onEdit}>
          <Icon name="edit" size={20} />
        </button>
      )}
      {onDelete && (
        <button type="button" className="icon-btn danger" aria-label={`${t('common.delete')} ${name}`} onClick={onDelete}>
          <Icon name="delete" size={20} />
        </button>
      )}
    </TableCell>
  );
}

/** The row a table shows when it has nothing to list (hidden while loading). */
export function EmptyRow({ show, colSpan }: { show: boolean; colSpan: number }) {
  const { t } = useTranslation();
  if (!show) return null;
  return (
    <TableRow>
      <TableCell colSpan={colSpan} className="empty">
        {t('common.noRecords')}
      </TableCell>
    </TableRow>
  );
}
