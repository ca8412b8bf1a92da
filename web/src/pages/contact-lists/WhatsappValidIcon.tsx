import { useTranslation } from 'react-i18next';

/**
 * Whether an item's number is on WhatsApp (spec 002 §2 "Contact list items"): found, not found, or
 * not checked yet (`null`: no connected default connection when it was added). The tooltip shows
 * on hover and on keyboard focus; screen readers read the same text.
 */
export function WhatsappValidIcon({ valid }: { valid: boolean | null }) {
  const { t } = useTranslation();
  const state = valid === true ? 'valid' : valid === false ? 'invalid' : 'unknown';
  const text = t(`contactListItems.wa.${state}`);
  return (
    <span className={`cl-wa cl-wa-${state}`} role="img" aria-label={text} data-tip={text} tabIndex={0} data-testid="whatsapp-valid" data-state={state}>
      <svg width={20} height={20} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        {state === 'unknown' ? (
          <>
            <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeWidth="2" />
            <path d="M12 7.5V12l3 2" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
          </>
        ) : (
          <>
            <circle cx="12" cy="12" r="10" fill="currentColor" />
            <path
              d={state === 'valid' ? 'M7.2 12.4l3.3 3.3L17 9.2' : 'M8.6 8.6l6.8 6.8M15.4 8.6l-6.8 6.8'}
              fill="none"
              stroke="#fff"
              strokeWidth="2.3"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </>
        )}
      </svg>
    </span>
  );
}
