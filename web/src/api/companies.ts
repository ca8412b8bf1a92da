import type { ScheduleEntry } from '@balcao/shared';
import { call } from './call';
import { resource } from './resource';

export const companiesApi = {
  ...resource('/companies'),
  /** The company's weekly business hours (setting `scheduleType` `company`). */
  saveSchedules: (id: number, schedules: ScheduleEntry[]) => call('PUT /companies/{id}/schedules', { params: { id }, body: { schedules } }),
};
