import type { FormValidation } from './schemas/platform.js';

/**
 * Answers of a FORM queue's fields (server-behaviour §4): what `isValidationField` checks. An
 * option names its check in `validation`; one that does not is checked by what its field name
 * says (e-mail, CPF/CNPJ, else a number), as the spec's three kinds go.
 */
export function validationOf(field: { fieldName: string | null; title: string; validation: FormValidation | null }): FormValidation {
  if (field.validation) return field.validation;
  const name = `${field.fieldName ?? ''} ${field.title}`.toLowerCase();
  if (/e-?mail/.test(name)) return 'email';
  if (/cpf|cnpj|documento/.test(name)) return 'cpfCnpj';
  return 'number';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/** Whether `answer` passes the check (spaces around it ignored). */
export function isValidAnswer(kind: FormValidation, answer: string): boolean {
  const a = answer.trim();
  switch (kind) {
    case 'email':
      return a.length <= 200 && EMAIL.test(a);
    case 'number':
      // Digits with the usual separators of a phone, a CEP or an amount.
      return /\d/.test(a) && /^[\d\s.,()+\-/]+$/.test(a);
    case 'cpfCnpj': {
      const d = a.replace(/[\s./-]/g, '');
      if (!/^\d+$/.test(d)) return false;
      return d.length === 11 ? isCpf(d) : d.length === 14 ? isCnpj(d) : false;
    }
  }
}

function isCpf(d: string): boolean {
  if (/^(\d)\1{10}$/.test(d)) return false;
  const check = (len: number) => {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += Number(d[i]) * (len + 1 - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return check(9) === Number(d[9]) && check(10) === Number(d[10]);
}

function isCnpj(d: string): boolean {
  if (/^(\d)\1{13}$/.test(d)) return false;
  const check = (len: number) => {
    const weights = len === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const sum = weights.reduce((s, w, i) => s + w * Number(d[i]), 0);
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return check(12) === Number(d[12]) && check(13) === Number(d[13]);
}
