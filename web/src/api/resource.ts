import { api } from './http';

type Id = number | string;

/**
 * The request paths of one REST collection, so pages call `usersApi.update(id, body)` and never
 * spell a path. `save` is the dialogs' "edit when there is an id, else create".
 */
export function resource<T>(path: string) {
  const one = (id: Id) => `${path}/${id}`;
  return {
    path,
    get: (id: Id) => api.get<T>(one(id)),
    create: (body: unknown) => api.post<T>(path, body),
    update: (id: Id, body: unknown) => api.put<T>(one(id), body),
    save: (id: Id | null | undefined, body: unknown) => (id ? api.put<T>(one(id), body) : api.post<T>(path, body)),
    remove: (id: Id) => api.del(one(id)),
  };
}

/** The attachment of a record whose upload route needs its id (quick replies, schedules). */
export function mediaOf<T>(path: string) {
  const media = (id: Id) => `${path}/${id}/media-upload`;
  return {
    uploadMedia: (id: Id, form: FormData) => api.post<T>(media(id), form),
    dropMedia: (id: Id) => api.del<T>(media(id)),
  };
}

/** A list route without paging (`GET /queue`, `/plans/all`, …). */
export const listOf =
  <T>(path: string, query?: Record<string, string | number | undefined>) =>
  () =>
    api.get<T[]>(path, query ? { query } : undefined);
