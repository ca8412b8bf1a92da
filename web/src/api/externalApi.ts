import type { ApiAnswers } from '@balcao/shared';
import { config } from '../config';
import { request } from './http';

type Sent = ApiAnswers['POST /api/messages/send'];
const PATH = '/api/messages/send';

/**
 * The external messages API (server-behaviour §11) as its documentation page tries it: the
 * connection's token, never the user's session.
 */
export const externalApi = {
  /** The address an outside system calls. */
  url: () => `${config().apiUrl}${PATH}`,
  /** Text: JSON `{number, body}`. */
  sendText: (token: string, number: string, body: string) => request<Sent>('POST', PATH, { bearer: token, body: { number, body } }),
  /** Media: multipart `number`, `body` (the file's name, as the spec's form sends it) and `medias`. */
  sendMedia: (token: string, number: string, file: File) => {
    const form = new FormData();
    form.append('number', number);
    form.append('body', file.name);
    form.append('medias', file, file.name);
    return request<Sent>('POST', PATH, { bearer: token, body: form });
  },
};
