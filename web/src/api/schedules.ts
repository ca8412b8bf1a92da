import { call } from './call';
import { mediaOf, resource } from './resource';

export const schedulesApi = {
  ...resource('/schedules'),
  ...mediaOf('/schedules'),
  page: (searchParam: string | undefined, pageNumber: number) => call('GET /schedules', { query: { searchParam, pageNumber } }),
};
