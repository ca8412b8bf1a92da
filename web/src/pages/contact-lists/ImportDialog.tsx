import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Text } from '@aws-amplify/ui-react';
import { Modal } from '../../ui/Modal';
import { IMPORT_ACCEPT, IMPORT_COLUMNS } from './lists';

/**
 * The import's confirmation (spec 002 §2 "Import: opens a confirmation, then uploads the chosen
 * file"): which columns a spreadsheet needs and which files are taken, then the file picker.
 */
export default function ImportDialog({ onClose, onFile }: { onClose: () => void; onFile: (file: File) => void }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  return (
    <Modal open title={t('contactListItems.importTitle')} onClose={onClose} wide>
      <Flex direction="column" gap="0.75rem" data-testid="contact-list-import-dialog">
        <Text>{t('contactListItems.importIntro')}</Text>
        <table className="cl-columns">
          <thead>
            <tr>
              <th scope="col">{t('contactListItems.importColumn')}</th>
              <th scope="col">{t('contactListItems.importHeaders')}</th>
              <th scope="col">{t('contactListItems.importContent')}</th>
            </tr>
          </thead>
          <tbody>
            {IMPORT_COLUMNS.map((c) => (
              <tr key={c.key}>
                <th scope="row">{t(`contactListItems.${c.key}`)}</th>
                <td>
                  {c.headers.map((h, i) => (
                    <span key={h}>
                      {i > 0 && ', '}
                      <code>{h}</code>
                    </span>
                  ))}
                </td>
                <td>{t(`contactListItems.importRules.${c.key}`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <Text fontSize="small">{t('contactListItems.importTypes')}</Text>
        <Text fontSize="small" color="font.secondary">
          {t('contactListItems.importChecks')}
        </Text>
        <Flex justifyContent="flex-end" gap="0.5rem" marginTop="0.5rem">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button variation="primary" onClick={() => input.current?.click()}>
            {t('contactListItems.chooseFile')}
          </Button>
        </Flex>
        <input
          ref={input}
          type="file"
          accept={IMPORT_ACCEPT}
          hidden
          data-testid="contact-list-import-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) onFile(file);
          }}
        />
      </Flex>
    </Modal>
  );
}
