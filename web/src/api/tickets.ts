import type { ApiTicket } from '../pages/tickets/types';
import { resource } from './resource';

export const ticketsApi = resource<ApiTicket>('/tickets');
