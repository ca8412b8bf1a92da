import { useEffect, useRef, useState } from 'react';
import { toastError } from '../api/errors';

/**
 * The record a dialog edits, loaded once per opening (a late answer never overwrites what the user
 * typed: `onLoad` decides); when it cannot load, the error is toasted and the dialog closes.
 * Answers whether it is still loading.
 */
export function useRecord<T>(id: number | null | undefined, load: (id: number) => Promise<T>, onLoad: (record: T) => void, onClose: () => void, enabled = true) {
  const [loading, setLoading] = useState(!!id);
  // Not keyed on the callbacks: fresh closures on every parent render must not repeat the load.
  const latest = useRef({ load, onLoad, onClose });
  latest.current = { load, onLoad, onClose };
  useEffect(() => {
    if (!enabled || !id) return;
    let live = true;
    setLoading(true);
    latest.current
      .load(id)
      .then((r) => live && latest.current.onLoad(r))
      .catch((e) => {
        if (!live) return;
        toastError(e);
        latest.current.onClose();
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [enabled, id]);
  return loading;
}

/**
 * A list a form or page picks from (queues, tags, attendants…), loaded when `enabled` turns on.
 * Until it loads, and when it cannot, it is `fallback` (`null` keeps a field disabled).
 */
export function useOptions<T, F extends T | null = T>(load: () => Promise<T>, fallback: F, opts: { enabled?: boolean; onError?: (e: unknown) => void } = {}) {
  const enabled = opts.enabled ?? true;
  const [value, setValue] = useState<T | F>(fallback);
  const latest = useRef({ load, fallback, onError: opts.onError });
  latest.current = { load, fallback, onError: opts.onError };
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    latest.current
      .load()
      .then((v) => live && setValue(v))
      .catch((e) => {
        if (!live) return;
        if (latest.current.onError) latest.current.onError(e);
        else setValue(latest.current.fallback);
      });
    return () => {
      live = false;
    };
  }, [enabled]);
  return value;
}

/**
 * Runs `load` whenever `deps` change and answers whether it is running. `live()` turns false once
 * newer deps (or leaving the page) make its answer stale; a failure is the spec's error toast.
 */
export function useLoading(load: (live: () => boolean) => Promise<void>, deps: unknown[], initial = false): boolean {
  const [loading, setLoading] = useState(initial);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load(() => live)
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, deps);
  return loading;
}
