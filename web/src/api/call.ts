import { routeRequest, type ApiAnswers, type ApiCallArgs, type ApiRoute } from '@balcao/shared';
import { request, type RequestOptions } from './http';

type Args<R extends ApiRoute> = ApiCallArgs<R> & Pick<RequestOptions, 'auth' | 'quiet401'>;

/**
 * One call of a typed route (shared/src/api-routes.ts): `call('PUT /tickets/{id}', { params: { id }, body })`
 * answers the route's answer type; the path parameters, query keys and body are checked against
 * the route's contract.
 */
export function call<R extends ApiRoute>(route: R, ...[args]: [PathlessOrNot<R>] extends [true] ? [Args<R>?] : [Args<R>]): Promise<ApiAnswers[R]> {
  const a = (args ?? {}) as Args<R> & { params?: Record<string, string | number> };
  const [method, path] = routeRequest(route, a.params);
  return request<ApiAnswers[R]>(method, path, { query: a.query as RequestOptions['query'], body: a.body, auth: a.auth, quiet401: a.quiet401 });
}

/** Routes without path parameters may be called without arguments. */
type PathlessOrNot<R extends ApiRoute> = R extends `${string}{${string}` ? false : true;
