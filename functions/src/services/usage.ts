import { planLimitError, type LimitedResource } from '@balcao/shared';
import { tx, type TransactItem } from '../core/db.js';
import { keys } from '../table/keys.js';

/**
 * Plan limits are kept race-free with a per-company usage item: the increment is a conditional
 * update inside the same transaction that creates the record (two creates at once cannot both
 * pass the last free slot).
 */
export function usageIncrement(companyId: number, resource: LimitedResource, limit: number | undefined): TransactItem {
  if (limit === undefined) {
    return tx.update(keys.usage(companyId), 'ADD #n :one', { ':one': 1 }, undefined, { '#n': resource });
  }
  return tx.update(
    keys.usage(companyId),
    'ADD #n :one',
    { ':one': 1, ':limit': limit, ':zero': 0 },
    '(attribute_not_exists(#n) AND :limit > :zero) OR #n < :limit',
    { '#n': resource },
  );
}

export const usageDecrement = (companyId: number, resource: LimitedResource): TransactItem =>
  tx.update(keys.usage(companyId), 'ADD #n :minus', { ':minus': -1 }, undefined, { '#n': resource });

export const limitError = planLimitError;
