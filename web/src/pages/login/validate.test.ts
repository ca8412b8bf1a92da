import { describe, expect, it } from 'vitest';
import { loginSchema } from '@balcao/shared';
import { validateLogin } from './validate';

/** The first error per field, as the zod resolver gives it to a form. */
function viaSchema(v: { email: string; password: string }) {
  const r = loginSchema.safeParse(v);
  if (r.success) return { values: r.data, errors: {} };
  const errors: Record<string, string> = {};
  for (const i of r.error.issues) errors[String(i.path[0])] ??= i.message;
  return { values: undefined, errors };
}

describe('login validation without zod', () => {
  const emails = ['', '   ', 'a', 'ana@', '@x.com', 'ana@x', 'ana@x.c', 'ana@x.com', ' Ana@X.COM ', 'a.b+c@sub.example.org', 'a..b@x.com', '.a@x.com', 'a.@x.com', "o'neil@x.com", 'ana@-x.com', 'ana@x..com', 'ana x@x.com', 'ana@x.com.'];
  const passwords = ['', '  ', 'x', ' secret ', '12345'];

  it('gives the same messages as the shared loginSchema', () => {
    for (const email of emails)
      for (const password of passwords) {
        const mine = validateLogin({ email, password });
        const theirs = viaSchema({ email, password });
        expect({ email, password, errors: mine.errors }).toEqual({ email, password, errors: theirs.errors });
        if (theirs.values) expect(mine.values).toEqual(theirs.values);
      }
  });

  it('signs in with the trimmed, lowercased email and the trimmed password', () => {
    expect(validateLogin({ email: ' Ana@X.COM ', password: ' pw ' })).toEqual({ values: { email: 'ana@x.com', password: 'pw' }, errors: {} });
  });
});
