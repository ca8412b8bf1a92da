import type { Company } from '@balcao/shared';
import { resource } from './resource';

export const companiesApi = resource<Company>('/companies');
