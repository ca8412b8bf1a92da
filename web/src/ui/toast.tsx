import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { SHELL_TOAST_MS } from '@balcao/shared';

export type ToastKind = 'success' | 'error' | 'info' | 'warning';
/** A button in the toast ("Abrir atendimento"): clicking it runs `run` and closes the toast. */
export interface ToastAction {
  label: string;
  run: () => void;
}
interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
  ms: number;
  action?: ToastAction;
}
type Show = (kind: ToastKind, text: string, ms?: number, action?: ToastAction) => void;

const ToastContext = createContext<Show>(() => {});
let external: Show = () => {};
/** Non-React code (the API layer, realtime) raises toasts through this. */
export const toast = {
  success: (t: string, ms?: number, action?: ToastAction) => external('success', t, ms, action),
  error: (t: string, ms?: number) => external('error', t, ms),
  info: (t: string, ms?: number) => external('info', t, ms),
  warning: (t: string, ms?: number) => external('warning', t, ms),
};

export function ToastProvider({ children, defaultMs = SHELL_TOAST_MS }: { children: ReactNode; defaultMs?: number }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seq = useRef(0);
  const show = useCallback<Show>(
    (kind, text, ms, action) => {
      const id = ++seq.current;
      setToasts((list) => [...list.slice(-4), { id, kind, text, ms: ms ?? defaultMs, action }]);
    },
    [defaultMs],
  );
  useEffect(() => {
    external = show;
  }, [show]);
  const dismiss = useCallback((id: number) => setToasts((l) => l.filter((t) => t.id !== id)), []);
  const value = useMemo(() => show, [show]);
  // Open <dialog>s sit in the browser's top layer; the toast stack is a manual popover so it can
  // be raised above them each time a toast appears.
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current as (HTMLDivElement & { showPopover?: () => void; hidePopover?: () => void }) | null;
    if (!el?.showPopover || toasts.length === 0) return;
    try {
      if (el.matches(':popover-open')) el.hidePopover?.();
      el.showPopover();
    } catch {
      /* popover unsupported: the fixed stack still shows outside dialogs */
    }
  }, [toasts.length]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="polite" ref={host} popover="manual">
        {toasts.map((t) => (
          <ToastItem key={t.id} toast={t} onDone={dismiss} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

function ToastItem({ toast: t, onDone }: { toast: Toast; onDone: (id: number) => void }) {
  useEffect(() => {
    const h = setTimeout(() => onDone(t.id), t.ms);
    return () => clearTimeout(h);
  }, [t, onDone]);
  return (
    <div className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'} onClick={() => onDone(t.id)}>
      {t.text}
      {t.action && (
        <button
          type="button"
          className="toast-action"
          onClick={(e) => {
            e.stopPropagation();
            t.action!.run();
            onDone(t.id);
          }}
        >
          {t.action.label}
        </button>
      )}
    </div>
  );
}

export const useToast = () => useContext(ToastContext);
