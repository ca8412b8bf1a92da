import type { ReactNode } from 'react';
import type { IntegrationType } from '@balcao/shared';

/*
 * The integrations table's type marks (spec 003: a logo per type). Drawn here, small badges in
 * each type's own colour, so the console ships no third-party logo files.
 */
const WHITE = '#fff';

const glyphs: Record<IntegrationType, ReactNode> = {
  // A speech bubble with three dots: a conversational agent.
  dialogflow: (
    <>
      <path d="M7 7.5h14a2.5 2.5 0 0 1 2.5 2.5v6.5a2.5 2.5 0 0 1-2.5 2.5h-5.5l-4.5 3.5V19H7a2.5 2.5 0 0 1-2.5-2.5V10A2.5 2.5 0 0 1 7 7.5z" fill={WHITE} />
      <circle cx="10" cy="13.25" r="1.4" fill="currentColor" />
      <circle cx="14" cy="13.25" r="1.4" fill="currentColor" />
      <circle cx="18" cy="13.25" r="1.4" fill="currentColor" />
    </>
  ),
  // One node branching into two: a workflow.
  n8n: (
    <g stroke={WHITE} strokeWidth="2" fill="none" strokeLinecap="round">
      <path d="M9.5 14h3.5l3.5-5h2M13 14l3.5 5h2" />
      <circle cx="7" cy="14" r="2.5" fill={WHITE} />
      <circle cx="21" cy="9" r="2.5" />
      <circle cx="21" cy="19" r="2.5" />
    </g>
  ),
  // Three linked points: a message handed from one address to the next.
  webhook: (
    <g stroke={WHITE} strokeWidth="2" fill="none" strokeLinecap="round">
      <path d="M12.3 9.6 8.6 16.8M15.7 9.6l3.7 7.2M10 20h8" />
      <circle cx="14" cy="7.2" r="2.6" fill={WHITE} />
      <circle cx="7.4" cy="19.6" r="2.6" fill={WHITE} />
      <circle cx="20.6" cy="19.6" r="2.6" fill={WHITE} />
    </g>
  ),
  // A robot's head: a chatbot flow.
  typebot: (
    <g stroke={WHITE} strokeWidth="2" fill="none" strokeLinecap="round">
      <path d="M14 5.5v4" />
      <circle cx="14" cy="5" r="1.3" fill={WHITE} stroke="none" />
      <rect x="6.5" y="9.5" width="15" height="11.5" rx="3.5" />
      <circle cx="11" cy="15" r="1.5" fill={WHITE} stroke="none" />
      <circle cx="17" cy="15" r="1.5" fill={WHITE} stroke="none" />
    </g>
  ),
};

/** The badge of an integration type; `label` names it for screen readers and as a tooltip. */
export function TypeLogo({ type, label, size = 28 }: { type: IntegrationType; label: string; size?: number }) {
  return (
    <span className={`qi-logo qi-logo-${type}`} role="img" aria-label={label} title={label} data-type={type}>
      <svg width={size} height={size} viewBox="0 0 28 28" aria-hidden="true" focusable="false">
        <rect width="28" height="28" rx="7" fill="currentColor" />
        {glyphs[type]}
      </svg>
    </span>
  );
}
