import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex } from '@aws-amplify/ui-react';
import { contactsCsv } from '@balcao/shared';
import { contactsApi, type ContactFilters, type ExportRow } from '../../api/contacts';
import { toastError } from '../../api/errors';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { toast } from '../../ui/toast';
import { download } from './csv';

const ImportCsvDialog = lazy(() => import('./ImportCsvDialog'));
const TransferContactsDialog = lazy(() => import('./TransferContactsDialog'));

/**
 * contacts.csv (spec 001 §8): every contact of the current filters (all of them without any), read
 * page after page of `GET /contacts/export` with its cursor; a contact renamed meanwhile can come
 * twice from the alphabetical index, so rows are kept once by id.
 */
async function exportCsv(filters: ContactFilters, onProgress: (n: number) => void) {
  const rows = new Map<number, ExportRow>();
  let cursor: string | undefined;
  do {
    const r = await contactsApi.exportPage(filters, cursor);
    for (const c of r.contacts) rows.set(c.id, c);
    onProgress(rows.size);
    cursor = r.next ?? undefined;
  } while (cursor);
  download('contacts.csv', contactsCsv([...rows.values()]));
}

/** The contacts page's second row: import (phone, CSV), export, transfer (admins) and add. */
export function ContactsTools({ count, filters, admin, onAdd, reload }: { count: number; filters: ContactFilters; admin: boolean; onAdd: () => void; reload: () => void }) {
  const { t } = useTranslation();
  const [importingPhone, setImportingPhone] = useState(false);
  // false: not importing; null: importing, no page answered yet.
  const [phoneProgress, setPhoneProgress] = useState<{ done: number; total: number } | null | false>(false);
  const [csvOpen, setCsvOpen] = useState(false);
  const [transferOpen, setTransferOpen] = useState(false);
  // false: not exporting; else the rows read so far.
  const [exported, setExported] = useState<number | false>(false);

  /**
   * The phone's address book, a page (IMPORT_MAX_ROWS entries) per call until the server answers no
   * `next`. A call that fails stops here; the pages already imported stay, and importing again only
   * finds them unchanged.
   */
  const importFromPhone = async () => {
    setPhoneProgress(null);
    const sum = { created: 0, updated: 0, unchanged: 0, refused: 0 };
    let done = 0;
    try {
      let after: string | undefined;
      do {
        const r = await contactsApi.importPhone(after);
        sum.created += r.created;
        sum.updated += r.updated;
        sum.unchanged += r.unchanged;
        sum.refused += r.refused.length;
        done += r.created + r.updated + r.unchanged + r.refused.length;
        setPhoneProgress({ done, total: r.total ?? done });
        after = r.next ?? undefined;
      } while (after);
      toast.success(t('contacts.importTotals', sum), 6000);
    } catch (e) {
      if (done) toast.error(t('contacts.importStopped', { sent: done }), 6000);
      toastError(e);
    } finally {
      setPhoneProgress(false);
      if (done) reload();
    }
  };
  const startExport = () => {
    setExported(0);
    exportCsv(filters, setExported)
      .catch(toastError)
      .finally(() => setExported(false));
  };

  return (
    <Flex gap="0.5rem" wrap="wrap" className="contacts-actions">
      <Button
        size="small"
        onClick={() => setImportingPhone(true)}
        isLoading={phoneProgress !== false}
        loadingText={phoneProgress ? t('contacts.importedOf', { done: phoneProgress.done, total: phoneProgress.total }) : t('contacts.importPhone')}
        data-testid="contacts-import-phone"
      >
        {t('contacts.importPhone')}
      </Button>
      <Button size="small" onClick={() => setCsvOpen(true)}>
        {t('contacts.importCsv')}
      </Button>
      <Button
        size="small"
        onClick={startExport}
        isLoading={exported !== false}
        loadingText={t('contacts.exportedOf', { done: exported || 0, total: Math.max(count, exported || 0) })}
        data-testid="contacts-export"
      >
        {t('contacts.exportCsv')}
      </Button>
      {admin && (
        <Button size="small" onClick={() => setTransferOpen(true)}>
          {t('contacts.transfer')}
        </Button>
      )}
      <Button size="small" variation="primary" onClick={onAdd}>
        {t('contacts.add')}
      </Button>
      <ConfirmDialog
        open={importingPhone}
        title={t('contacts.importPhoneTitle')}
        message={t('contacts.importPhoneMessage')}
        onClose={() => setImportingPhone(false)}
        onConfirm={() => void importFromPhone()}
      />
      <Suspense fallback={null}>
        {csvOpen && <ImportCsvDialog open onClose={() => setCsvOpen(false)} onDone={reload} />}
        {transferOpen && <TransferContactsDialog open onClose={() => setTransferOpen(false)} onDone={reload} />}
      </Suspense>
    </Flex>
  );
}
