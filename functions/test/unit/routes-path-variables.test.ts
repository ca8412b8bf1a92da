import { describe, expect, it } from 'vitest';
import { routes } from '../../src/routes.js';

describe('route manifest', () => {
  it('uses one variable name per path level (API Gateway refuses {id} beside {ticketId})', () => {
    // Path prefix (literal segments, variables as {}) → the variable names used right after it.
    const names = new Map<string, Set<string>>();
    for (const route of routes) {
      const segments = route.path.split('/').filter(Boolean);
      segments.forEach((seg, i) => {
        const variable = /^\{([^}]+)\}$/.exec(seg)?.[1];
        if (!variable) return;
        const prefix = segments.slice(0, i).map((s) => (s.startsWith('{') ? '{}' : s)).join('/');
        names.set(prefix, (names.get(prefix) ?? new Set()).add(variable.replace(/\+$/, '')));
      });
    }
    const conflicts = [...names].filter(([, set]) => set.size > 1).map(([prefix, set]) => `/${prefix}/{${[...set].join('|')}}`);
    expect(conflicts).toEqual([]);
  });
});
