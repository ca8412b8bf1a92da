/** BRL with two decimals in the user's language (spec 003 §9). */
export const formatMoney = (value: number, lang: string) =>
  new Intl.NumberFormat(lang || 'pt-BR', { style: 'currency', currency: 'BRL', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
