/** A quick reply as `GET /quick-messages` answers it (shared/src/contracts.ts). */
export type { ApiQuickMessage as QuickMessage } from '@balcao/shared';
