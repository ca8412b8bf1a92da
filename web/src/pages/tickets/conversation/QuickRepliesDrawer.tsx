import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Text, TextField } from '@aws-amplify/ui-react';
import type { QuickReply } from './Composer';
import { Drawer } from './Drawer';
import { CIcon } from './icons';

export function QuickRepliesDrawer({ list, disabled, onPick, onClose }: { list: QuickReply[]; disabled: boolean; onPick: (q: QuickReply) => void; onClose: () => void }) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const shown = list.filter((x) => !q.trim() || x.shortcode.toLowerCase().includes(q.trim().toLowerCase()) || x.message.toLowerCase().includes(q.trim().toLowerCase()));
  return (
    <Drawer title={t('ticket.quickReplies')} onClose={onClose} testId="quick-replies-drawer">
      <TextField label={t('common.search')} labelHidden placeholder={t('common.search')} size="small" value={q} onChange={(e) => setQ(e.target.value)} />
      <div className="qr-list">
        {shown.length === 0 && <Text color="font.secondary">{t('composer.noQuickReplies')}</Text>}
        {shown.map((x) => (
          <button key={x.id} type="button" className="qr-item" disabled={disabled} onClick={() => onPick(x)}>
            <strong>/{x.shortcode}</strong>
            <span className="qr-msg">{x.message}</span>
            {x.mediaName && (
              <span className="qr-media">
                <CIcon name="attach" size={14} /> {x.mediaName}
              </span>
            )}
          </button>
        ))}
      </div>
    </Drawer>
  );
}
