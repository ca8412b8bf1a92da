import type { ApiAnswers, ApiCallArgs, ApiRoute } from '@balcao/shared';
import { api } from './http';

type Id = number | string;
type Key<R extends string> = Extract<R, ApiRoute>;
/** The answer of a route named by its parts, from the route contracts (shared/src/api-routes.ts). */
type Answer<R extends string> = ApiAnswers[Key<R>];
/** A route's body as its schema takes it; multipart routes (a photo, a file) also take a form. */
type Body<R extends string> = ApiCallArgs<Key<R>>['body'] | FormData;
/** The entity dialogs submit their form's values, already checked by the same schema in the form. */
type FormValues = Record<string, unknown>;

/** Collections with item routes: `PUT <path>/{id}` (and its GET, POST, DELETE). */
export type CollectionPath = { [R in ApiRoute]: R extends `PUT ${infer Base}/{id}` ? Base : never }[ApiRoute];
/** Collections whose records carry a file (`POST|DELETE <path>/{id}/media-upload`). */
type MediaPath = { [R in ApiRoute]: R extends `POST ${infer Base}/{id}/media-upload` ? Base : never }[ApiRoute];
/** Routes listed without paging (`GET /queue`, `/plans/all`, …) that answer an array. */
type ListPath = { [R in ApiRoute]: R extends `GET ${infer P}` ? (ApiAnswers[R] extends unknown[] ? (P extends `${string}{${string}` ? never : P) : never) : never }[ApiRoute];

/**
 * The request paths of one REST collection, so pages call `usersApi.update(id, body)` and never
 * spell a path; answers and bodies are typed by the route contracts. `save` is the dialogs'
 * "edit when there is an id, else create".
 */
export function resource<P extends CollectionPath>(path: P) {
  const one = (id: Id) => `${path}/${encodeURIComponent(String(id))}`;
  return {
    path,
    get: (id: Id) => api.get<Answer<`GET ${P}/{id}`>>(one(id)),
    create: (body: Body<`POST ${P}`>) => api.post<Answer<`POST ${P}`>>(path, body),
    update: (id: Id, body: Body<`PUT ${P}/{id}`>) => api.put<Answer<`PUT ${P}/{id}`>>(one(id), body),
    save: (id: Id | null | undefined, body: FormValues | FormData) =>
      id ? api.put<Answer<`PUT ${P}/{id}`>>(one(id), body) : api.post<Answer<`POST ${P}`>>(path, body),
    remove: (id: Id) => api.del(one(id)),
  };
}

/** The attachment of a record whose upload route needs its id (quick replies, schedules). */
export function mediaOf<P extends MediaPath>(path: P) {
  const media = (id: Id) => `${path}/${encodeURIComponent(String(id))}/media-upload`;
  return {
    uploadMedia: (id: Id, form: FormData) => api.post<Answer<`POST ${P}/{id}/media-upload`>>(media(id), form),
    dropMedia: (id: Id) => api.del<Answer<`DELETE ${P}/{id}/media-upload`>>(media(id)),
  };
}

/** A list route without paging (`GET /queue`, `/plans/all`, …). */
export const listOf =
  <P extends ListPath>(path: P, query?: Record<string, string | number | undefined>) =>
  () =>
    api.get<Answer<`GET ${P}`>>(path, query ? { query } : undefined);
