/**
 * The name of the connection "Conexão padrão" stands for, as the server resolves it
 * (functions/src/services/connections.ts `defaultConnection`): the user's own default connection
 * while it exists, else the company's default, else its oldest.
 */
export function defaultConnectionName(list: { id: number; name: string; isDefault: boolean }[], userDefaultId?: number | null): string | undefined {
  const own = userDefaultId ? list.find((c) => c.id === userDefaultId) : undefined;
  return (own ?? list.find((c) => c.isDefault) ?? [...list].sort((a, b) => a.id - b.id)[0])?.name;
}
