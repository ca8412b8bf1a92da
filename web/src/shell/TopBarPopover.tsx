import { useRef, type ReactNode } from 'react';
import { useDismiss } from '../ui/hooks';

interface Props {
  /** The button's label, the panel's label and its heading. */
  title: string;
  icon: ReactNode;
  /** The button's badge (none at 0; 99+ above 99). */
  count: number;
  /** Shown instead of the list when it is empty. */
  emptyText: string | null;
  open: boolean;
  setOpen: (open: boolean | ((o: boolean) => boolean)) => void;
  /** Before the panel opens (a click: what may only follow a gesture). */
  onOpen?: () => void;
  /** The stylesheet's class prefix: `<p>`, `<p>-count`, `<p>-panel`, `<p>-head`, `<p>-empty`. */
  classes: string;
  testIds: { button: string; count: string; panel: string };
  /** More attributes of the button (data-*). */
  buttonData?: Record<`data-${string}`, string | number>;
  /** The panel's list and anything after it. */
  children: ReactNode;
}

/**
 * The frame of a top-bar popover (spec 000 §2.3: notifications, internal chats, announcements): the
 * icon button with its count, the panel with its heading and empty text, closed by a click outside
 * or Escape.
 */
export function TopBarPopover({ title, icon, count, emptyText, open, setOpen, onOpen, classes, testIds, buttonData, children }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useDismiss(box, open, () => setOpen(false));
  const toggle = () => {
    if (!open) onOpen?.();
    setOpen((o) => !o);
  };
  return (
    <div className={classes} ref={box}>
      <button type="button" className="icon-btn" aria-label={title} aria-expanded={open} data-testid={testIds.button} {...buttonData} onClick={toggle}>
        {icon}
        {count > 0 && (
          <span className={`${classes}-count`} data-testid={testIds.count}>
            {count > 99 ? '99+' : count}
          </span>
        )}
      </button>
      {open && (
        <div className={`${classes}-panel`} role="dialog" aria-label={title} data-testid={testIds.panel}>
          <div className={`${classes}-head`}>{title}</div>
          {emptyText && <div className={`${classes}-empty`}>{emptyText}</div>}
          {children}
        </div>
      )}
    </div>
  );
}
