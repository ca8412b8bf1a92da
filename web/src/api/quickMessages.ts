import { mediaOf, resource } from './resource';

export const quickMessagesApi = { ...resource('/quick-messages'), ...mediaOf('/quick-messages') };
