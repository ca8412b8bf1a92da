import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createContact, deleteContact, getContact, transferContacts, updateContact } from '../../services/contacts.js';
import { exportContacts, listContacts, listContactsBrief } from '../../services/contact-list.js';
import { importContactList, importFromPhone } from '../../services/contact-import.js';
import { toApiContactFull } from '../../services/contact-api.js';

export const handler = createRouter('contacts', {
  'GET /contacts': (req) => listContacts(req.identity, req.query),
  'GET /contacts/list': (req) => listContactsBrief(req.identity, req.query),
  'GET /contacts/export': (req) => exportContacts(req.identity, req.query),
  'GET /contacts/{id}': (req) => getContact(req.identity, idParam(req.params.id)),
  'POST /contacts': async (req) => created(await toApiContactFull(await createContact(req.identity, req.body))),
  'PUT /contacts/{id}': async (req) => toApiContactFull(await updateContact(req.identity, idParam(req.params.id), req.body)),
  'DELETE /contacts/{id}': async (req) => {
    await deleteContact(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /contacts/import': (req) => importFromPhone(req.identity, req.body),
  'POST /contacts/importList': (req) => importContactList(req.identity, req.body),
  'POST /contacts/transferUser': (req) => transferContacts(req.identity, req.body),
});
