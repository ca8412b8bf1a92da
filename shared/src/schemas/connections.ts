import { z } from 'zod';
import { MSG, boolish, boundedName, idList, optionalId } from '../validation.js';
import { PROVIDERS } from '../whatsapp.js';

const text = () => z.string().max(10_000, { error: MSG.tooLong }).optional();
const minutes = () => z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(0, { error: MSG.invalidValue }).max(525_600, { error: MSG.invalidValue }).optional());

/** Connection dialog (spec 000 §2.8, §5). */
export const connectionSchema = z.object({
  name: boundedName(2, 50),
  greetingMessage: text(),
  complationMessage: text(),
  outOfHoursMessage: text(),
  ratingMessage: text(),
  expiresInactiveMessage: text(),
  isDefault: boolish().optional(),
  /** The external API token: stored hashed; an empty value keeps the current one. */
  token: z.string().max(200, { error: MSG.tooLong }).optional(),
  provider: z.enum(PROVIDERS, { error: MSG.invalidValue }).optional(),
  timeToTransfer: minutes(),
  transferQueueId: optionalId().optional(),
  expiresTicket: minutes(),
  timeUseBotQueues: minutes(),
  maxUseBotQueues: minutes(),
  sendIdQueue: optionalId().optional(),
  timeSendQueue: minutes(),
  promptId: optionalId().optional(),
  integrationId: optionalId().optional(),
  queueIds: idList().optional(),
});
export const connectionUpdateSchema = connectionSchema.partial();
export type ConnectionInput = z.infer<typeof connectionSchema>;
