/**
 * Message texts of the spec, in a module without zod: the console maps them to its catalogues on
 * its first load, which must not pull the schema library in (the bundler keeps whole modules).
 * validation.ts and schemas/schedules.ts re-export them.
 */

/** Form messages of the spec (000 §5, 001 §5, 003 §5). */
export const MSG = {
  required: 'Required',
  tooShort: 'Too Short!',
  tooLong: 'Too Long!',
  invalidEmail: 'Invalid email',
  obrigatorio: 'Obrigatório',
  mensagemCurta: 'Mensagem muito curta',
  passwordPolicy: 'A senha deve ter no mínimo 8 caracteres, com letra maiúscula, letra minúscula e número',
  passwordMismatch: 'As senhas não correspondem',
  invalidValue: 'Valor inválido',
  scientificNumber: 'Número em notação científica (a planilha o arredondou): formate a coluna como texto',
  tokenGenerated: 'O token é gerado pelo sistema: use o botão Gerar',
  invalidTime: 'Horário inválido: use HH:MM',
  endBeforeStart: 'O horário final deve ser depois do inicial',
  invalidWeekday: 'Dia da semana inválido',
  repeatedWeekday: 'Dia da semana repetido',
  optionTooDeep: 'O menu pode ter no máximo 10 níveis',
  optionTooWide: 'Cada nível do menu pode ter no máximo 50 opções',
  optionTaken: 'Já existe uma opção com este número neste nível',
  invalidUrl: 'URL inválida: use um endereço http ou https',
  serviceAccountInvalid: 'JSON de conta de serviço do Google inválido',
  promptQueueRequired: 'Informe o setor',
  integrationRequired: 'Escolha a integração da fila',
  secretRetype: 'Digite a chave novamente (a guardada não é mostrada nem levada a outro endereço)',
  /** Spec 002 §5: a file list's name under 3 characters. */
  nomeMuitoCurto: 'nome muito curto',
  fileListTooManyOptions: 'Uma lista pode ter no máximo 20 arquivos',
  variableKeyInvalid: 'Use apenas letras, números e _ no atalho',
  variableTaken: 'Já existe uma variável com este atalho',
  variableReserved: 'Este atalho já é uma variável do sistema ({nome}, {numero}, {email})',
  tooManyVariables: 'No máximo 50 variáveis',
  /** Campaigns (issue 20 §5). */
  campaignNoMessage: 'Escreva ao menos uma mensagem',
  campaignPastDate: 'A data agendada já passou',
  campaignNoRecipients: 'Escolha uma lista de contatos ou uma tag',
  campaignConnectionNotConnected: 'A conexão não está conectada',
  /** Help videos (decision 59): a YouTube video code (11 characters) or a YouTube address. */
  helpVideoInvalid: 'Código de vídeo inválido: use o código do YouTube (11 caracteres) ou o endereço do vídeo',
  /** Checkout address step (spec 003 §5). */
  fullNameRequired: 'O nome completo é obrigatório',
  addressRequired: 'O Endereço é obrigatório',
  cityRequired: 'Cidade é obrigatória',
  zipRequired: 'CEP é obrigatório',
  countryRequired: 'País é obrigatório',
  /** Dashboard (spec 000 §2.5, §5): a filter needs at least one parameter. */
  dashboardNoFilter: 'Parametrize o filtro',
  dashboardInvalidDate: 'Data inválida',
  dashboardRangeOrder: 'A data final deve ser igual ou posterior à inicial',
  dashboardRangeTooLong: 'O período pode ter no máximo 366 dias',
} as const;

export const SCHEDULE_MEDIA_REFUSED = 'Apenas imagens png, jpg ou jpeg';
export const SCHEDULE_INVALID_DATE = 'Data inválida';
/** A schedule made from a ticket names a ticket of another contact. */
export const SCHEDULE_TICKET_OF_OTHER_CONTACT = 'O atendimento não é deste contato';
/** Spec 000 §2.7: a transfer of contacts to the same attendant is refused with this text. */
export const SAME_ATTENDANT = 'Não é possível transferir para o mesmo atendente';
/** Spec 001 §8: a new ticket needs a queue unless the user is admin. */
export const SELECT_QUEUE = 'Selecione uma fila';
