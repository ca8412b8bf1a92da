import type { Queue } from '@balcao/shared';
import { listOf, resource } from './resource';

export const queuesApi = { ...resource<Queue>('/queue'), all: listOf<Queue>('/queue') };
