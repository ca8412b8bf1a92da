import { useTranslation } from 'react-i18next';
import { Alert, Flex, Loader, Text } from '@aws-amplify/ui-react';
import type { ContactListImport } from '@balcao/shared';
import { Icon } from '../../ui/icons';
import { importPercent, uncheckedCount } from './lists';

/** What the panel shows: a file on its way up, a file refused as a whole, or the list's import. */
export type ImportView = { phase: 'uploading'; fileName: string } | { phase: 'refused'; fileName: string; reason: string } | { phase: 'import'; import: ContactListImport };

/**
 * A spreadsheet import's progress and report (issue 20 §2), driven by the list's `import` as its
 * live updates bring it: rows handled out of the file's as a bar, then the counts (imported,
 * duplicated, invalid; found on WhatsApp or not) and the first rows refused with their reasons.
 */
export function ImportPanel({ view, onClose }: { view: ImportView; onClose?: () => void }) {
  const { t, i18n } = useTranslation();
  const n = (x: number) => x.toLocaleString(i18n.language);
  const close = onClose && (
    <button type="button" className="icon-btn cl-import-close" aria-label={t('contactListItems.closeReport')} title={t('contactListItems.closeReport')} onClick={onClose}>
      <svg width={18} height={18} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
      </svg>
    </button>
  );

  if (view.phase === 'uploading') {
    return (
      <section className="cl-import" aria-label={t('contactListItems.importReport')} data-testid="contact-list-import" data-status="uploading">
        <Flex alignItems="center" gap="0.6rem">
          <Loader size="small" />
          <Text>{t('contactListItems.uploading', { file: view.fileName })}</Text>
        </Flex>
      </section>
    );
  }
  if (view.phase === 'refused') {
    return (
      <section className="cl-import" aria-label={t('contactListItems.importReport')} data-testid="contact-list-import" data-status="refused">
        <Alert variation="error" isDismissible={!!onClose} onDismiss={onClose} hasIcon>
          {t('contactListItems.refused', { file: view.fileName, reason: view.reason })}
        </Alert>
      </section>
    );
  }

  const imp = view.import;
  const running = imp.status === 'running';
  const percent = importPercent(imp);
  const rejected = imp.duplicated + imp.invalid;
  const unchecked = uncheckedCount(imp);
  const stats: { key: string; value: number; tone?: 'ok' | 'bad' | 'muted' }[] = [
    { key: 'imported', value: imp.imported, tone: 'ok' },
    { key: 'duplicated', value: imp.duplicated, tone: imp.duplicated ? 'muted' : undefined },
    { key: 'invalid', value: imp.invalid, tone: imp.invalid ? 'bad' : undefined },
    { key: 'whatsappFound', value: imp.whatsappValid, tone: 'ok' },
    { key: 'whatsappNotFound', value: imp.whatsappInvalid, tone: imp.whatsappInvalid ? 'bad' : undefined },
    ...(unchecked > 0 && !running ? [{ key: 'whatsappUnchecked', value: unchecked, tone: 'muted' as const }] : []),
  ];

  return (
    <section className="cl-import" aria-label={t('contactListItems.importReport')} data-testid="contact-list-import" data-status={imp.status}>
      <Flex alignItems="center" justifyContent="space-between" gap="0.5rem">
        <Flex alignItems="center" gap="0.5rem" className="cl-import-title">
          {running ? <Loader size="small" /> : imp.status === 'done' ? <Icon name="check" size={20} /> : null}
          <Text as="strong" data-testid="contact-list-import-title">
            {t(running ? 'contactListItems.importRunning' : imp.status === 'done' ? 'contactListItems.importDone' : 'contactListItems.importStopped', { file: imp.fileName })}
          </Text>
        </Flex>
        {!running && close}
      </Flex>

      <div
        className="cl-progress"
        role="progressbar"
        aria-label={t('contactListItems.progressLabel')}
        aria-valuemin={0}
        aria-valuemax={imp.total}
        aria-valuenow={imp.processed}
        aria-valuetext={t('contactListItems.progress', { processed: n(imp.processed), total: n(imp.total) })}
      >
        <div className={`cl-progress-bar${imp.status === 'failed' ? ' failed' : ''}`} style={{ width: `${percent}%` }} />
        <span className="cl-progress-text" data-testid="contact-list-import-progress">
          {t('contactListItems.progress', { processed: n(imp.processed), total: n(imp.total) })} · {percent}%
        </span>
      </div>

      {imp.status === 'failed' && (
        <Alert variation="error" hasIcon>
          {t('contactListItems.importFailed')}
        </Alert>
      )}

      <dl className="cl-stats" data-testid="contact-list-import-stats">
        {stats.map((s) => (
          <div key={s.key} className={`cl-stat${s.tone ? ` ${s.tone}` : ''}`} data-stat={s.key}>
            <dt>{t(`contactListItems.stats.${s.key}`)}</dt>
            <dd>{n(s.value)}</dd>
          </div>
        ))}
      </dl>

      {imp.errors.length > 0 && (
        <div className="cl-rejected">
          <Text fontWeight="600" fontSize="small">
            {imp.errors.length < rejected
              ? t('contactListItems.rejectedFirst', { shown: n(imp.errors.length), total: n(rejected) })
              : t('contactListItems.rejected')}
          </Text>
          <div className="cl-rejected-scroll">
            <table className="cl-rejected-table" data-testid="contact-list-import-errors">
              <thead>
                <tr>
                  <th scope="col">{t('contactListItems.row')}</th>
                  <th scope="col">{t('contactListItems.reason')}</th>
                </tr>
              </thead>
              <tbody>
                {imp.errors.map((e) => (
                  <tr key={`${e.row}-${e.reason}`}>
                    <td>{e.row}</td>
                    <td>{t(`contactListItems.reasons.${e.reason}`)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  );
}
