import { get, useForm, type DefaultValues, type FieldValues, type Path } from 'react-hook-form';
import type { z } from 'zod';
import { FORM_SUBMIT_DELAY_MS } from '@balcao/shared';
import { applyFieldErrors, toastError } from '../api/errors';
import { delay, fieldError, resolver } from './form';
import { toast } from './toast';

export interface EntityFormOptions<V extends FieldValues, T> {
  /** The shared zod schema: the console shows the server's messages before it asks the server. */
  schema: z.ZodType;
  defaultValues: DefaultValues<V>;
  /** The fields a `{field}` refusal may name; the form's own fields unless told. */
  fields?: readonly string[];
  /** Sends the form (`parsed` is the resolver's output, `raw` what the form shows); `undefined` stops quietly. */
  save: (parsed: V, raw: V) => Promise<T | undefined>;
  /** A second step on the saved record (its attachment): a failure keeps the dialog open on that record. */
  then?: (saved: T) => Promise<T>;
  onThenError?: (e: unknown) => void;
  savedText: string;
  onSaved?: (saved: T) => void;
  onClose: () => void;
  /** 'always': a refusal is toasted even when a field shows it; 'unmatched': only when no field does. */
  toastRefusal?: 'always' | 'unmatched';
  /** The spec's pause before sending; the super user's forms send at once. */
  pause?: boolean;
}

/**
 * The state of an entity dialog's form: react-hook-form with the shared schema, the submit with
 * its pause, the `{error, message, field}` refusals under their fields and in a toast, and the
 * saved toast. `field(name)` gives a text field its registration and error.
 */
export function useEntityForm<V extends FieldValues, T>(o: EntityFormOptions<V, T>) {
  const form = useForm<V>({ resolver: resolver<V>(o.schema), defaultValues: o.defaultValues });
  const fields = o.fields ?? Object.keys(o.defaultValues);
  const onSubmit = form.handleSubmit(async (parsed) => {
    if (o.pause !== false) await delay(FORM_SUBMIT_DELAY_MS);
    let saved: T | undefined;
    try {
      saved = await o.save(parsed, form.getValues());
    } catch (e) {
      const shown = applyFieldErrors(e, form.setError as never, fields);
      if (o.toastRefusal !== 'unmatched' || !shown) toastError(e);
      return;
    }
    if (saved === undefined) return;
    if (o.then) {
      try {
        saved = await o.then(saved);
      } catch (e) {
        o.onSaved?.(saved);
        o.onThenError?.(e);
        toastError(e);
        return;
      }
    }
    toast.success(o.savedText);
    o.onSaved?.(saved);
    o.onClose();
  });
  const { errors } = form.formState;
  const error = (name: Path<V>) => fieldError(get(errors, name) as { message?: string } | undefined);
  const field = (name: Path<V>) => ({ ...form.register(name), hasError: !!get(errors, name), errorMessage: error(name) });
  return { form, onSubmit, field, error, errors, submitting: form.formState.isSubmitting };
}

export type EntityForm = Pick<ReturnType<typeof useEntityForm>, 'onSubmit' | 'submitting'>;
