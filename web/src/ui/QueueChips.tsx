import { useTranslation } from 'react-i18next';
import { Flex, Text } from '@aws-amplify/ui-react';
import type { QueueRef } from '@balcao/shared';

/** Queues as toggle chips in their colours (user and connection dialogs). */
export function QueueChips({ queues, value, onChange, label }: { queues: QueueRef[]; value: number[]; onChange: (ids: number[]) => void; label?: string }) {
  const { t } = useTranslation();
  return (
    <Flex wrap="wrap" gap="0.5rem" role="group" aria-label={label}>
      {queues.length === 0 && <Text color="font.secondary">{t('common.noRecords')}</Text>}
      {queues.map((q) => {
        const on = value.includes(q.id);
        return (
          <button
            type="button"
            key={q.id}
            className={`chip${on ? ' chip-on' : ''}`}
            aria-pressed={on}
            style={on ? { background: q.color, borderColor: q.color } : { borderColor: q.color }}
            onClick={() => onChange(on ? value.filter((id) => id !== q.id) : [...value, q.id])}
          >
            {q.name}
          </button>
        );
      })}
    </Flex>
  );
}
