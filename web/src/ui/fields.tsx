import type { ReactNode } from 'react';
import { Controller, type Control, type FieldValues, type Path, type UseFormReturn } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { CheckboxField, Flex, SelectField, SwitchField, TextField, type SelectFieldProps, type TextFieldProps } from '@aws-amplify/ui-react';

/** One option of a select: its value and the text shown (`disabled`: shown, not offered). */
export interface Choice {
  value: string | number;
  label: string;
  disabled?: boolean;
}

/** Named records as choices (connections, queues, attendants…). */
export const choicesOf = (list: readonly { id: number; name: string }[] | null | undefined): Choice[] => (list ?? []).map((x) => ({ value: x.id, label: x.name }));

type SelectProps = Omit<SelectFieldProps, 'children'> & { choices: readonly Choice[]; empty?: string; ref?: unknown };

/** A select of `choices`, with an `empty` first option ('') when given. Registered like a text field. */
export function Select({ choices, empty, ...props }: SelectProps) {
  return (
    <SelectField {...(props as SelectFieldProps)}>
      {empty !== undefined && <option value="">{empty}</option>}
      {choices.map((c) => (
        <option key={c.value} value={c.value} disabled={c.disabled}>
          {c.label}
        </option>
      ))}
    </SelectField>
  );
}

/**
 * A select whose value React owns (not the DOM): the record may load before its options, and a
 * select whose option is not there yet would lose the value.
 */
export function ControlledSelect<V extends FieldValues>({ control, name, ...props }: Omit<SelectProps, 'name' | 'value' | 'onChange' | 'onBlur'> & { control: Control<V>; name: Path<V> }) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <Select {...props} name={field.name} value={field.value == null ? '' : String(field.value)} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} />
      )}
    />
  );
}

/** A boolean field as a checkbox, or as a switch (`asSwitch`). */
export function CheckField<V extends FieldValues>({
  control,
  name,
  label,
  error,
  asSwitch,
  marginTop,
}: {
  control: Control<V>;
  name: Path<V>;
  label: string;
  error?: string;
  asSwitch?: boolean;
  marginTop?: string;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) =>
        asSwitch ? (
          <SwitchField label={label} isChecked={!!field.value} onChange={(e) => field.onChange(e.target.checked)} hasError={!!error} errorMessage={error} />
        ) : (
          <CheckboxField
            label={label}
            name={field.name}
            checked={!!field.value}
            onChange={(e) => field.onChange(e.target.checked)}
            hasError={!!error}
            errorMessage={error}
            marginTop={marginTop}
          />
        )
      }
    />
  );
}

// Distinct, readable on both themes; any other hex can be typed.
export const PALETTE = [
  '#e53935', '#d81b60', '#8e24aa', '#5e35b1', '#3949ab', '#1e88e5', '#039be5', '#00acc1',
  '#00897b', '#43a047', '#7cb342', '#c0ca33', '#fdd835', '#ffb300', '#fb8c00', '#f4511e',
  '#6d4c41', '#757575', '#546e7a', '#000000',
];

export const isHexColour = (c: string) => /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(c);

/**
 * The form's `color`: the palette's swatches (`palette`, `PALETTE` unless told; `columns` per row),
 * and a text field for any other hex beside a preview of the colour (`previewFirst`: the preview on
 * the left).
 */
export function ColourField({
  entity,
  legend,
  customLabel,
  preview,
  previewFirst,
  palette = PALETTE,
  columns,
}: {
  entity: { form: UseFormReturn<any>; field: (name: 'color') => object };
  legend: string;
  customLabel: string;
  preview: (colour: string) => ReactNode;
  previewFirst?: boolean;
  palette?: readonly string[];
  columns?: 7;
}) {
  const { t } = useTranslation();
  const value: string = entity.form.watch('color') ?? '';
  const picked = value.toLowerCase();
  const custom = <TextField placeholder="#1e88e5" {...(entity.field('color') as TextFieldProps)} label={customLabel} />;
  return (
    <fieldset className="color-picker">
      <legend>{legend}</legend>
      <div className={columns ? `swatches swatches-${columns}` : 'swatches'}>
        {palette.map((c) => (
          <button
            key={c}
            type="button"
            className={`swatch${picked === c ? ' selected' : ''}`}
            style={{ background: c }}
            aria-label={t('queues.pickColor', { color: c })}
            aria-pressed={picked === c}
            onClick={() => entity.form.setValue('color', c, { shouldValidate: true })}
          />
        ))}
      </div>
      <Flex alignItems="flex-end" gap="0.5rem" wrap={previewFirst ? undefined : 'wrap'}>
        {previewFirst ? preview(value) : custom}
        {previewFirst ? custom : preview(value)}
      </Flex>
    </fieldset>
  );
}

/** The browser's own zone: a wall-time field names its zone when the company's is another. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * A wall time (`datetime-local`, or a day with `type="date"`) in the company's zone `timeZone`,
 * the one the console shows dates in; the field says which zone when the browser's differs.
 */
export function DateTimeField({ timeZone, type = 'datetime-local', ...props }: Omit<TextFieldProps, 'type'> & { timeZone: string; type?: 'datetime-local' | 'date'; ref?: unknown }) {
  const { t } = useTranslation();
  const zone = browserZone() === timeZone ? undefined : t('dates.zone', { zone: timeZone.replace(/_/g, ' ') });
  return <TextField type={type} descriptiveText={type === 'date' ? undefined : zone} {...(props as TextFieldProps)} />;
}
