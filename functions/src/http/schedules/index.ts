import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  createSchedule,
  deleteSchedule,
  deleteScheduleMedia,
  getSchedule,
  listSchedules,
  toApiSchedule,
  updateSchedule,
  uploadScheduleMedia,
} from '../../services/schedules.js';

export const handler = createRouter('schedules', {
  'GET /schedules': (req) => listSchedules(req.identity, req.query),
  'GET /schedules/{id}': (req) => getSchedule(req.identity, idParam(req.params.id)),
  'POST /schedules': async (req) => created(await toApiSchedule(await createSchedule(req.identity, req.body))),
  'PUT /schedules/{id}': async (req) => toApiSchedule(await updateSchedule(req.identity, idParam(req.params.id), req.body)),
  'DELETE /schedules/{id}': async (req) => {
    await deleteSchedule(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /schedules/{id}/media-upload': async (req) => toApiSchedule(await uploadScheduleMedia(req.identity, idParam(req.params.id), req.files)),
  'DELETE /schedules/{id}/media-upload': async (req) => toApiSchedule(await deleteScheduleMedia(req.identity, idParam(req.params.id))),
});
