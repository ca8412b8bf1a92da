import { PT_BR_VOICES, type PromptVoice } from '@balcao/shared';

/** Azure's Brazilian Portuguese neural voices that speak as women (the others speak as men). */
const FEMALE = new Set<string>(['Francisca', 'Brenda', 'Elza', 'Giovanna', 'Leila', 'Leticia', 'Manuela', 'Thalita', 'Yara']);

/** The person a voice is named after: `pt-BR-FranciscaNeural` is Francisca. */
export const personOf = (voice: string) => /^pt-BR-(.+?)Neural$/.exec(voice)?.[1] ?? voice;

/** A voice as the dialog offers it: the person and whether the voice is a woman's or a man's. */
export function voiceChoices(t: (key: string, o?: Record<string, unknown>) => string): { value: PromptVoice; label: string }[] {
  return [
    { value: 'texto', label: t('prompts.voiceText') },
    ...PT_BR_VOICES.map((v) => {
      const name = personOf(v);
      return { value: v, label: t(FEMALE.has(name) ? 'prompts.voiceFemale' : 'prompts.voiceMale', { name }) };
    }),
  ];
}
