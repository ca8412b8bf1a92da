import { resource } from './resource';

export const companiesApi = resource('/companies');
