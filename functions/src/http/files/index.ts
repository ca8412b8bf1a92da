import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createFileList, deleteFileList, getFileList, listFileLists, updateFileList, uploadFileListFiles } from '../../services/file-lists.js';

export const handler = createRouter('files', {
  'GET /files': (req) => listFileLists(req.identity, req.query),
  'POST /files': async (req) => created(await createFileList(req.identity, req.body)),
  'GET /files/{id}': (req) => getFileList(req.identity, idParam(req.params.id)),
  'PUT /files/{id}': (req) => updateFileList(req.identity, idParam(req.params.id), req.body),
  'DELETE /files/{id}': async (req) => {
    await deleteFileList(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /files/uploadList/{id}': (req) => uploadFileListFiles(req.identity, idParam(req.params.id), req.files, req.body),
});
