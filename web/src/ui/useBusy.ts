import { useState } from 'react';
import { toastError } from '../api/errors';

/** A one-at-a-time action's busy flag; a failure is the spec's error toast. */
export function useBusy() {
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
    } catch (e) {
      toastError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, run };
}
