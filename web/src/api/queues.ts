import { listOf, resource } from './resource';

export const queuesApi = { ...resource('/queue'), all: listOf('/queue') };
