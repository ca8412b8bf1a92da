import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  createAnnouncement,
  deleteAnnouncement,
  deleteAnnouncementMedia,
  getAnnouncement,
  listAnnouncements,
  updateAnnouncement,
  uploadAnnouncementMedia,
} from '../../services/announcements.js';

export const handler = createRouter('announcements', {
  'GET /announcements': (req) => listAnnouncements(req.identity, req.query),
  'GET /announcements/{id}': (req) => getAnnouncement(req.identity, idParam(req.params.id)),
  'POST /announcements': async (req) => created(await createAnnouncement(req.identity, req.body)),
  'PUT /announcements/{id}': (req) => updateAnnouncement(req.identity, idParam(req.params.id), req.body),
  'DELETE /announcements/{id}': async (req) => {
    await deleteAnnouncement(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /announcements/{id}/media-upload': (req) => uploadAnnouncementMedia(req.identity, idParam(req.params.id), req.files),
  'DELETE /announcements/{id}/media-upload': (req) => deleteAnnouncementMedia(req.identity, idParam(req.params.id)),
});
