import type { ReactNode } from 'react';
import { Flex, Loader } from '@aws-amplify/ui-react';
import { DialogFooter } from './DialogFooter';
import { Modal } from './Modal';
import type { EntityForm } from './useEntityForm';

/**
 * An entity's add/edit dialog: the form of `useEntityForm` in a modal, a linear loader while the
 * record loads, and the Cancel / Save footer (Close alone when read-only).
 */
export function EntityDialog({
  open = true,
  title,
  entity,
  onClose,
  loading,
  wide = true,
  readOnly,
  testId,
  footerMargin,
  submitText,
  children,
}: {
  open?: boolean;
  title: string;
  entity: EntityForm;
  onClose: () => void;
  loading?: boolean;
  wide?: boolean;
  readOnly?: boolean;
  testId?: string;
  footerMargin?: string;
  /** The submit button's text (Save unless told). */
  submitText?: string;
  children: ReactNode;
}) {
  return (
    <Modal open={open} title={title} onClose={onClose} wide={wide}>
      {loading ? (
        <Loader variation="linear" />
      ) : (
        <form onSubmit={entity.onSubmit} noValidate data-testid={testId}>
          <Flex direction="column" gap="0.9rem">
            {children}
            <DialogFooter onCancel={onClose} busy={entity.submitting} readOnly={readOnly} marginTop={footerMargin} submitText={submitText} />
          </Flex>
        </form>
      )}
    </Modal>
  );
}
