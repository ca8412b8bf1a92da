import { AppError } from './errors.js';

/** Plan limits answered 400 "Número máximo de {noun} já alcançado: {n}" (server-behaviour §13). */
export const LIMIT_NOUNS = {
  users: 'usuários',
  connections: 'conexões',
  queues: 'filas',
  campaigns: 'campanhas',
  schedules: 'agendamentos',
} as const;
export type LimitedResource = keyof typeof LIMIT_NOUNS;

export function planLimitError(resource: LimitedResource, limit: number): AppError {
  return new AppError(400, 'ERR_PLAN_LIMIT', {
    message: `Número máximo de ${LIMIT_NOUNS[resource]} já alcançado: ${limit}`,
    details: { resource, limit },
  });
}

/** A limit of 0 means "not limited" is NOT assumed: the plan's number is the ceiling. */
export function assertWithinLimit(resource: LimitedResource, current: number, limit: number): void {
  if (current >= limit) throw planLimitError(resource, limit);
}
