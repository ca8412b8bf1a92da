import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createChat, createChatUpload, deleteChat, listChatMessages, listChats, markChatRead, sendChatMessage, updateChat } from '../../services/chats.js';

/** Internal chat (issue 21 §2; spec 002 §7 "Chats"): every route behind useInternalChat, members only. */
export const handler = createRouter('chats', {
  'GET /chats': (req) => listChats(req.identity, req.query),
  'POST /chats': async (req) => created(await createChat(req.identity, req.body)),
  'PUT /chats/{id}': (req) => updateChat(req.identity, idParam(req.params.id), req.body),
  'DELETE /chats/{id}': async (req) => {
    await deleteChat(req.identity, idParam(req.params.id));
    return noContent();
  },
  'GET /chats/{id}/messages': (req) => listChatMessages(req.identity, idParam(req.params.id), req.query),
  'POST /chats/{id}/messages': async (req) => {
    const messages = await sendChatMessage(req.identity, idParam(req.params.id), req.body, req.files);
    return created(messages.length > 1 ? { ...messages[0], messages } : messages[0]);
  },
  'POST /chats/{id}/media-upload': async (req) => created(await createChatUpload(req.identity, idParam(req.params.id), req.body)),
  'POST /chats/{id}/read': (req) => markChatRead(req.identity, idParam(req.params.id), req.body),
});
