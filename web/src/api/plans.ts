import type { Plan } from '@balcao/shared';
import { listOf, resource } from './resource';

export const plansApi = { ...resource<Plan>('/plans'), all: listOf<Plan>('/plans/all') };
/** The query key of every plan (the plans table and the companies dialog share it). */
export const PLANS_KEY = ['plans-all'];
