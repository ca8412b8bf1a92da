import { Controller } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Loader, Text } from '@aws-amplify/ui-react';
import { companySchedulesSchema } from '@balcao/shared';
import { companiesApi } from '../../api/companies';
import { useAuth } from '../../auth/AuthContext';
import { schedulePaths, weekOf, type ScheduleRow } from '../../ui/schedule';
import { ScheduleEditor } from '../../ui/ScheduleEditor';
import { useEntityForm } from '../../ui/useEntityForm';
import { useRecord } from '../../ui/useLoad';

interface Values {
  schedules: ScheduleRow[];
}

const nothing = () => {};

/** The Schedules tab (spec 003 §2, scheduleType `company`): the company's week, saved at once. */
export default function CompanySchedules() {
  const { t } = useTranslation();
  const companyId = useAuth().user?.companyId;
  const entity = useEntityForm<Values, { schedules: ScheduleRow[] }>({
    schema: companySchedulesSchema,
    defaultValues: { schedules: weekOf(undefined) },
    fields: schedulePaths(),
    save: (v) => companiesApi.saveSchedules(companyId!, v.schedules),
    savedText: t('settings.schedulesSaved'),
    onSaved: (saved) => entity.form.reset({ schedules: weekOf(saved.schedules) }),
    onClose: nothing,
    toastRefusal: 'unmatched',
  });
  const loading = useRecord(companyId, companiesApi.get, (c) => entity.form.reset({ schedules: weekOf(c.schedules) }), nothing);
  if (loading) return <Loader variation="linear" />;
  return (
    <form onSubmit={entity.onSubmit} noValidate data-testid="company-schedules" className="company-schedules">
      <Text color="font.secondary" marginBottom="0.75rem">
        {t('settings.schedulesIntro')}
      </Text>
      <Controller
        control={entity.form.control}
        name="schedules"
        render={({ field }) => <ScheduleEditor value={field.value} onChange={field.onChange} error={(i, f) => entity.error(`schedules.${i}.${f}`)} />}
      />
      <Flex justifyContent="flex-end" marginTop="1rem">
        <Button type="submit" variation="primary" isLoading={entity.submitting}>
          {t('common.save')}
        </Button>
      </Flex>
    </form>
  );
}
