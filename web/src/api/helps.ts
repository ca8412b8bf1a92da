import { listOf, resource } from './resource';

/** Help videos: the gallery (`/helps/list`, everyone) and the super user's records (`/helps`). */
export const helpsApi = { ...resource('/helps'), all: listOf('/helps/list') };
/** The query key of every help (the gallery and the settings Help tab share it). */
export const HELPS_KEY = ['helps-all'];
