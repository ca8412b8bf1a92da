import { useState, type ReactElement } from 'react';
import { Menu, MenuItem } from '@aws-amplify/ui-react';
import { useTranslation } from 'react-i18next';

/**
 * The top bar's user menu, its own chunk: Amplify's Menu brings Radix's dropdown, popper and focus
 * handling (~20 KB gzip) that no screen needs before the menu is first opened. Shell mounts it on
 * that first click, already open.
 */
export default function UserMenu({ trigger, onProfile, onLogout }: { trigger: ReactElement; onProfile: () => void; onLogout: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(true);
  return (
    <Menu trigger={trigger} isOpen={open} onOpenChange={setOpen}>
      <MenuItem onClick={onProfile}>{t('shell.profile')}</MenuItem>
      <MenuItem onClick={onLogout}>{t('shell.logout')}</MenuItem>
    </Menu>
  );
}
