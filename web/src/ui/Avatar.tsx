import { useTranslation } from 'react-i18next';

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('');

/** Photo or initials, with the presence dot of spec 000 §2.6. */
export function Avatar({ name, photoUrl, online }: { name: string; photoUrl?: string | null; online?: boolean }) {
  const { t } = useTranslation();
  return (
    <span className="avatar">
      {photoUrl ? <img src={photoUrl} alt="" /> : <span className="avatar-initials">{initials(name)}</span>}
      {online !== undefined && (
        <span className={`presence ${online ? 'on' : 'off'}`} title={online ? t('users.online') : t('users.offline')} aria-label={online ? t('users.online') : t('users.offline')} />
      )}
    </span>
  );
}
