import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Button, Flex, Text } from '@aws-amplify/ui-react';
import { IMPORT_MAX_ROWS, parseContactsCsv, type ContactCsvRow } from '@balcao/shared';
import { contactsApi } from '../../api/contacts';
import { errorText } from '../../api/errors';
import { translateMessage } from '../../i18n';
import { Modal } from '../../ui/Modal';

interface Totals {
  created: number;
  updated: number;
  unchanged: number;
  refused: { line: number; number: string; reason: string }[];
}

/** Refusals listed in the dialog; the counts always cover all of them. */
const SHOWN_REFUSALS = 200;

/**
 * Import CSV (spec 001 §5): the file is read in the browser and sent in consecutive calls of at
 * most IMPORT_MAX_ROWS rows (the server's limit per request), with progress; the counts and the
 * reasons of refused rows are summed over every call.
 */
export default function ImportCsvDialog({ open, onClose, onDone }: { open: boolean; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<{ name: string; rows: ContactCsvRow[]; lines: number[]; hasNumber: boolean; header: string[] } | null>(null);
  const [sent, setSent] = useState(0);
  const [running, setRunning] = useState(false);
  const [totals, setTotals] = useState<Totals | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const stop = useRef(false);

  const choose = async (f: File | undefined) => {
    setTotals(null);
    setFailure(null);
    setSent(0);
    if (!f) return setFile(null);
    // The bytes, not f.text(): that reads UTF-8 only and would garble an Excel Latin-1 file's accents.
    const parsed = parseContactsCsv(await f.arrayBuffer());
    setFile({ name: f.name, rows: parsed.rows, lines: parsed.lines, hasNumber: parsed.columns.includes('number'), header: parsed.header });
  };

  const run = async () => {
    if (!file) return;
    setRunning(true);
    setFailure(null);
    stop.current = false;
    const sum: Totals = { created: 0, updated: 0, unchanged: 0, refused: [] };
    setTotals({ ...sum });
    try {
      for (let start = 0; start < file.rows.length; start += IMPORT_MAX_ROWS) {
        if (stop.current) break;
        const chunk = file.rows.slice(start, start + IMPORT_MAX_ROWS);
        const r = await contactsApi.importList(chunk);
        sum.created += r.created;
        sum.updated += r.updated;
        sum.unchanged += r.unchanged;
        // The server numbers rows from 1 within the call: back to the file's lines.
        for (const x of r.refused) sum.refused.push({ line: file.lines[start + x.row - 1] ?? start + x.row + 1, number: x.number, reason: x.reason });
        setSent(start + chunk.length);
        setTotals({ ...sum, refused: [...sum.refused] });
      }
    } catch (e) {
      // Rows already sent stay imported; importing the same file again changes nothing for them.
      setFailure(errorText(e));
    } finally {
      setRunning(false);
      onDone();
    }
  };

  const total = file?.rows.length ?? 0;
  const finished = !!totals && !running;
  return (
    <Modal
      open={open}
      title={t('contacts.importCsvTitle')}
      onClose={() => {
        if (running) stop.current = true;
        onClose();
      }}
    >
      <Flex direction="column" gap="0.9rem" data-testid="import-csv">
        <Text fontSize="small">{t('contacts.importCsvHelp')}</Text>
        <Flex alignItems="center" gap="0.75rem" wrap="wrap">
          <label className="file-btn">
            {t('contacts.chooseFile')}
            <input
              ref={input}
              type="file"
              accept=".csv,text/csv,text/plain"
              data-testid="import-csv-file"
              disabled={running}
              onChange={(e) => void choose(e.target.files?.[0])}
            />
          </label>
          {file && (
            <Text fontSize="small" data-testid="import-csv-summary">
              {file.name} — {t('contacts.rowsInFile', { count: total })}
            </Text>
          )}
        </Flex>
        {file && !file.hasNumber && (
          <Alert variation="warning" data-testid="import-csv-no-number">
            {t('contacts.noNumberColumn', { columns: file.header.filter(Boolean).join(', ') || '—' })}
          </Alert>
        )}
        {(running || totals) && total > 0 && (
          <div className="import-progress" role="progressbar" aria-label={t('contacts.progress')} aria-valuemin={0} aria-valuemax={total} aria-valuenow={sent}>
            <div className="import-progress-bar" style={{ width: `${Math.round((sent / total) * 100)}%` }} />
            <span className="import-progress-text" data-testid="import-progress">
              {sent} / {total}
            </span>
          </div>
        )}
        {totals && (
          <div data-testid="import-result" data-finished={finished ? 'true' : 'false'}>
            <Text>
              {t('contacts.importTotals', { created: totals.created, updated: totals.updated, unchanged: totals.unchanged, refused: totals.refused.length })}
            </Text>
            {totals.refused.length > 0 && (
              <ul className="import-refused" aria-label={t('contacts.refusedRows')}>
                {totals.refused.slice(0, SHOWN_REFUSALS).map((r) => (
                  <li key={r.line}>
                    {t('contacts.line', { line: r.line })}
                    {r.number ? ` (${r.number})` : ''}: {translateMessage(r.reason)}
                  </li>
                ))}
                {totals.refused.length > SHOWN_REFUSALS && <li>{t('contacts.moreRefused', { count: totals.refused.length - SHOWN_REFUSALS })}</li>}
              </ul>
            )}
          </div>
        )}
        {failure && (
          <Alert variation="error" data-testid="import-failure">
            {t('contacts.importStopped', { sent })} {failure}
          </Alert>
        )}
        <Flex justifyContent="flex-end" gap="0.5rem">
          <Button
            onClick={() => {
              if (running) stop.current = true;
              onClose();
            }}
          >
            {finished ? t('common.close') : t('common.cancel')}
          </Button>
          <Button variation="primary" isDisabled={!file || !file.hasNumber || total === 0 || running || finished} isLoading={running} loadingText={t('contacts.importing')} onClick={() => void run()}>
            {t('contacts.import')}
          </Button>
        </Flex>
      </Flex>
    </Modal>
  );
}
