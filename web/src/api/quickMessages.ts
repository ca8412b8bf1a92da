import type { QuickMessage } from '../pages/quick-messages/types';
import { mediaOf, resource } from './resource';

export const quickMessagesApi = { ...resource<QuickMessage>('/quick-messages'), ...mediaOf<QuickMessage>('/quick-messages') };
