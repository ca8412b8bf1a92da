import { accepted, createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  createContactList,
  createContactListItem,
  deleteContactList,
  deleteContactListItem,
  getContactList,
  getContactListItem,
  listAllContactLists,
  listContactListItems,
  listContactLists,
  updateContactList,
  updateContactListItem,
} from '../../services/campaign-contact-lists.js';
import { uploadContactList } from '../../services/contact-list-import.js';

export const handler = createRouter('contactLists', {
  'GET /contact-lists': (req) => listContactLists(req.identity, req.query),
  'GET /contact-lists/list': (req) => listAllContactLists(req.identity),
  'POST /contact-lists': async (req) => created(await createContactList(req.identity, req.body)),
  'GET /contact-lists/{id}': (req) => getContactList(req.identity, idParam(req.params.id)),
  'PUT /contact-lists/{id}': (req) => updateContactList(req.identity, idParam(req.params.id), req.body),
  'POST /contact-lists/{id}/upload': async (req) => accepted(await uploadContactList(req.identity, idParam(req.params.id), req.files)),
  'DELETE /contact-lists/{id}': async (req) => {
    await deleteContactList(req.identity, idParam(req.params.id));
    return noContent();
  },
  'GET /contact-list-items': (req) => listContactListItems(req.identity, req.query),
  'POST /contact-list-items': async (req) => created(await createContactListItem(req.identity, req.body)),
  'GET /contact-list-items/{id}': (req) => getContactListItem(req.identity, idParam(req.params.id)),
  'PUT /contact-list-items/{id}': (req) => updateContactListItem(req.identity, idParam(req.params.id), req.body),
  'DELETE /contact-list-items/{id}': async (req) => {
    await deleteContactListItem(req.identity, idParam(req.params.id));
    return noContent();
  },
});
