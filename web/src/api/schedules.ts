import type { Schedule } from '@balcao/shared';
import { api } from './http';
import { mediaOf, resource } from './resource';

export const schedulesApi = {
  ...resource<Schedule>('/schedules'),
  ...mediaOf<Schedule>('/schedules'),
  page: (searchParam: string | undefined, pageNumber: number) =>
    api.get<{ schedules: Schedule[]; hasMore: boolean }>('/schedules', { query: { searchParam, pageNumber } }),
};
