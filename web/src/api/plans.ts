import { listOf, resource } from './resource';

export const plansApi = { ...resource('/plans'), all: listOf('/plans/all') };
/** The query key of every plan (the plans table and the companies dialog share it). */
export const PLANS_KEY = ['plans-all'];
