import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createNote, deleteNote, listNotes } from '../../services/ticket-notes.js';

export const handler = createRouter('ticketNotes', {
  'POST /ticket-notes': async (req) => created(await createNote(req.identity, req.body)),
  'GET /ticket-notes/list': async (req) => listNotes(req.identity, req.query),
  'DELETE /ticket-notes/{id}': async (req) => {
    await deleteNote(req.identity, idParam(req.params.id));
    return noContent();
  },
});
