import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createHelp, deleteHelp, getHelp, listAllHelps, listHelps, updateHelp } from '../../services/helps.js';

/** Help videos (spec 003 §7): reads for every signed-in user; writes gated to the super user by the route table. */
export const handler = createRouter('helps', {
  'GET /helps': (req) => listHelps(req.query),
  'GET /helps/list': () => listAllHelps(),
  'POST /helps': async (req) => created(await createHelp(req.body)),
  'GET /helps/{id}': (req) => getHelp(idParam(req.params.id)),
  'PUT /helps/{id}': (req) => updateHelp(idParam(req.params.id), req.body),
  'DELETE /helps/{id}': async (req) => {
    await deleteHelp(idParam(req.params.id));
    return noContent();
  },
});
