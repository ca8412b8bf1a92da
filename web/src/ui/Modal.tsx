import { useEffect, useRef, type ReactNode } from 'react';
import { Heading } from '@aws-amplify/ui-react';

/** A native <dialog>: focus trap, Esc to close and the backdrop come from the browser. */
export function Modal({
  open,
  title,
  onClose,
  children,
  wide,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`modal${wide ? ' modal-wide' : ''}`}
      aria-label={title}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && (
        <div className="modal-body">
          <Heading level={4} marginBottom="1rem">
            {title}
          </Heading>
          {children}
        </div>
      )}
    </dialog>
  );
}
