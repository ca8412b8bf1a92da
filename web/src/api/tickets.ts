import { resource } from './resource';

export const ticketsApi = resource('/tickets');
