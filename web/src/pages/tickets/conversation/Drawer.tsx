import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { CIcon } from './icons';

/** A right-side panel of the ticket screen (spec 001 §2: 320 px). */
export function Drawer({ title, onClose, children, testId }: { title: string; onClose: () => void; children: ReactNode; testId: string }) {
  const { t } = useTranslation();
  return (
    <aside className="tv-drawer" aria-label={title} data-testid={testId}>
      <header className="tv-drawer-head">
        <strong>{title}</strong>
        <button type="button" className="icon-btn small" aria-label={t('ticket.closeDrawer')} onClick={onClose}>
          <CIcon name="close" size={18} />
        </button>
      </header>
      <div className="tv-drawer-body">{children}</div>
    </aside>
  );
}
