import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { ApiFileList } from '@balcao/shared';
import { fileListsApi } from '../../api/fileLists';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
import FileListDialog from './FileListDialog';
import './file-lists.css';

/** The server's search: a fragment of the name, accents and case aside. */
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
const matches = (l: ApiFileList, term: string) => !term || fold(l.name).includes(fold(term));

/** The file lists page (spec 002 §2 "File lists"; the administration section of spec 000 §2.2). */
export default function FileLists() {
  const { t } = useTranslation();
  const live = useLiveTable<ApiFileList>({ api: fileListsApi, itemsKey: 'files', event: 'FileList', eventNames: ['id', 'record'], matches, texts: 'fileLists' });
  const { items, actions } = live;

  return (
    <EntityTablePage
      texts="fileLists"
      live={live}
      add
      nameOf={(l) => l.name}
      deleteMessage={t('fileLists.deleteMessage')}
      columns={['name']}
      dialogs={actions.editing && <FileListDialog record={actions.editing.item} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
      {items.map((l) => {
        const withFile = l.options.filter((o) => o.path).length;
        return (
          <TableRow key={l.id} data-testid={`file-list-row-${l.id}`}>
            <TableCell>
              <span className="fl-name">{l.name}</span>
              <span className="fl-count">{t('fileLists.fileCount', { count: withFile })}</span>
            </TableCell>
            <RowActions name={l.name} onEdit={() => actions.edit(l)} onDelete={() => actions.askDelete(l)} />
          </TableRow>
        );
      })}
    </EntityTablePage>
  );
}
