/**
 * Deterministic Portuguese customer-service conversations for the tickets benchmark: contact names,
 * products, problems and scripted exchanges. Word frequencies are skewed (Zipf) so searches have
 * both selective words (a rare product, a surname at the end of the list, an order number) and
 * common ones ("pedido", "entrega").
 */

/** mulberry32: small, fast and reproducible (the same options generate the same data). */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}
export type Rng = ReturnType<typeof rng>;

/** Picks from a list with weight 1/(rank+1)^s: the first entries are common, the last ones rare. */
export function zipf<T>(xs: readonly T[], s = 1) {
  const w = xs.map((_, i) => 1 / (i + 1) ** s);
  const total = w.reduce((a, b) => a + b, 0);
  const cum: number[] = [];
  let acc = 0;
  for (const v of w) cum.push((acc += v / total));
  return {
    pick(r: Rng): T {
      const x = r.next();
      let lo = 0;
      let hi = cum.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cum[mid] < x) lo = mid + 1;
        else hi = mid;
      }
      return xs[lo];
    },
    share: (i: number) => w[i] / total,
  };
}

export const FIRST_NAMES = (
  'Maria Ana José João Antônio Francisco Carlos Paulo Pedro Lucas Luiz Marcos Luís Gabriel Rafael Daniel Marcelo Bruno ' +
  'Eduardo Felipe Juliana Adriana Márcia Fernanda Patrícia Aline Sandra Camila Amanda Bruna Jéssica Letícia Júlia Luciana ' +
  'Raimundo Rodrigo Manoel Mateus André Fernando Fábio Leonardo Gustavo Guilherme Leandro Tiago Vanessa Mariana Gabriela ' +
  'Vera Vitória Larissa Cláudia Beatriz Luana Rita Sônia Renata Eliane Ricardo Márcio Jorge Alexandre Roberto Edson Diego ' +
  'Vitor Sérgio Cláudio Josefa Simone Natália Cristina Carla Débora Rosângela Jaqueline Conceição Tatiane Raquel Isabela ' +
  'Helena Lúcia Heitor Otávio Valdir Iracema Joaquim Benedita Anselmo Dirce Gumercindo Zuleica'
).split(' ');

export const SURNAMES = (
  'Silva Santos Oliveira Souza Rodrigues Ferreira Alves Pereira Lima Gomes Costa Ribeiro Martins Carvalho Almeida Lopes ' +
  'Soares Fernandes Vieira Barbosa Rocha Dias Nascimento Andrade Moreira Nunes Marques Machado Mendes Freitas Cardoso ' +
  'Ramos Gonçalves Santana Teixeira Araújo Pinto Moura Cavalcanti Monteiro Correia Batista Campos Barros Castro Rezende ' +
  'Brandão Azevedo Siqueira Magalhães Albuquerque Figueiredo Peixoto Queiroz Sampaio Tavares Bezerra Fonseca Guimarães ' +
  'Macedo Pacheco Coelho Leite Borges Medeiros Vasconcelos Assunção Prado Xavier Bittencourt Damasceno Falcão Quintela ' +
  'Valença Sardinha Junqueira Paranhos Lacerda Meireles Aragão Wanderley Holanda Brito Trindade Espíndola Nogueira Caldas'
).split(' ');

/** Products, most sold first (masculine or feminine for the article). */
export const PRODUCTS: readonly { w: string; f: boolean }[] = (
  'celular:m geladeira:f notebook:m televisão:f fogão:m colchão:m sofá:m ventilador:m liquidificador:m cafeteira:f ' +
  'impressora:f monitor:m tablet:m fone:m guarda-roupa:m cadeira:f mesa:f batedeira:f aspirador:m ferro:m ' +
  'micro-ondas:m máquina:f secadora:f tanquinho:m bicicleta:f patinete:m smartwatch:m roteador:m teclado:m mouse:m ' +
  'panela:f frigideira:f airfryer:f torradeira:f sanduicheira:f purificador:m bebedouro:m climatizador:m aquecedor:m ' +
  'churrasqueira:f furadeira:f parafusadeira:f lavadora:f cortador:m projetor:m videogame:m controle:m carregador:m ' +
  'berço:m carrinho:m cômoda:f escrivaninha:f estante:f rack:m poltrona:f luminária:f ventoinha:f umidificador:m ' +
  'desumidificador:m triturador:m espremedor:m mixer:m chaleira:f grill:m sorveteira:f iogurteira:f pipoqueira:f'
)
  .split(' ')
  .map((x) => ({ w: x.split(':')[0], f: x.endsWith(':f') }));

export const BRANDS = 'Tecnomax Lumina Brisatec Voltaris Nortel Casalar Eletrobom Fortix Mirage Solaris Vortex Aurora Pampa Ipê Cerrado'.split(' ');

export const PROBLEMS = [
  'chegou com defeito',
  'veio quebrado na caixa',
  'não liga de jeito nenhum',
  'ainda não foi entregue',
  'chegou diferente do anúncio',
  'está fazendo um barulho estranho',
  'parou de funcionar depois de uma semana',
  'veio faltando peças',
  'chegou com a embalagem rasgada',
  'esquenta demais quando uso',
  'veio na cor errada',
  'não carrega a bateria',
] as const;

export const SUBJECTS = [
  'troca',
  'devolução',
  'reembolso',
  'garantia',
  'rastreamento',
  'nota fiscal',
  'segunda via do boleto',
  'cancelamento',
  'parcelamento',
  'instalação',
  'assistência técnica',
  'cupom de desconto',
  'estorno no cartão',
  'frete grátis',
] as const;

export const CITIES = (
  'São Paulo|Campinas|Curitiba|Recife|Fortaleza|Salvador|Belém|Manaus|Goiânia|Florianópolis|Natal|Maceió|Teresina|Londrina|' +
  'Joinville|Uberlândia|Sorocaba|Niterói|Contagem|Aracaju|Cuiabá|Porto Velho|Macapá|Boa Vista|Palmas|Chapecó|Mossoró|Petrolina'
).split('|');

const products = zipf(PRODUCTS, 1.1);
const subjects = zipf(SUBJECTS, 0.9);
const problems = zipf(PROBLEMS, 0.8);
const cities = zipf(CITIES, 1);
export const firstNames = zipf(FIRST_NAMES, 0.9);
export const surnames = zipf(SURNAMES, 0.9);

/** A word of one product's name that is rare in the data (used for the selective message search). */
export const rareProducts = PRODUCTS.slice(-12).map((p) => p.w);

export function contactName(r: Rng): string {
  const n = `${firstNames.pick(r)} ${surnames.pick(r)}`;
  return r.next() < 0.5 ? `${n} ${surnames.pick(r)}` : n;
}

export interface Script {
  /** What the conversation is about, for the search queries. */
  product: string;
  order: string;
  protocol: string;
  lines: { fromMe: boolean; body: string }[];
}

/**
 * A conversation of `n` messages between a customer and an agent (`agent` undefined: only the
 * customer wrote, as in a ticket still waiting in the queue). WhatsApp messages are short and
 * repetitive: about 25 distinct indexable words per ticket, like real chats of this size.
 */
export function conversation(r: Rng, n: number, customer: string, agent: string | undefined): Script {
  const p = products.pick(r);
  const art = p.f ? 'uma' : 'um';
  const o = p.f ? 'a' : 'o';
  const product = p.w;
  const brand = r.pick(BRANDS);
  const order = String(r.int(1_000_000, 9_999_999));
  const protocol = `${r.int(2023, 2025)}${String(r.int(1, 999_999)).padStart(6, '0')}`;
  const subject = subjects.pick(r);
  const problem = problems.pick(r);
  const first = customer.split(' ')[0];
  const openings = [
    `Bom dia! Comprei ${art} ${product} ${brand} e ${problem}.`,
    `Oi, ${o} ${product} que comprei ${problem}`,
    `Boa tarde, preciso de ajuda com ${o} ${product} ${brand}`,
    `Olá! Meu pedido ${order} ${problem}`,
  ];
  const customerPool = [
    `O número do pedido é ${order}`,
    `Quero ${subject}`,
    'Alguma novidade?',
    `Moro em ${cities.pick(r)}`,
    `Já faz ${r.int(2, 20)} dias`,
    'Ok, obrigado',
    'Quanto tempo demora?',
    'Mandei a foto agora',
    'Ainda estou aguardando',
    'Pode ser',
    '👍',
    'Bom dia',
  ];
  // Each customer writes some of these, in their own order.
  for (let i = customerPool.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [customerPool[i], customerPool[j]] = [customerPool[j], customerPool[i]];
  }
  const customerLines = [r.pick(openings), ...customerPool.slice(0, 6)];
  const agentLines = agent
    ? [
        `Olá ${first}, tudo bem? Sou ${agent.split(' ')[0]}.`,
        'Pode informar o número do pedido?',
        `Encontrei o pedido ${order}, vou verificar.`,
        `Abri o protocolo ${protocol} para ${subject}.`,
        `O prazo é de ${r.int(3, 15)} dias úteis.`,
        'Já encaminhei para o setor responsável.',
        'Posso ajudar em mais alguma coisa?',
      ]
    : [];
  const lines: Script['lines'] = [];
  let c = 0;
  let a = 0;
  for (let i = 0; i < n; i++) {
    // Agents answer about every other message; a long conversation comes back to the same lines.
    const fromMe = !!agent && i > 0 && (i % 2 === 1 || r.next() < 0.2);
    if (fromMe) lines.push({ fromMe, body: agentLines[a++ < agentLines.length ? a - 1 : 2 + (a % (agentLines.length - 2))] });
    else lines.push({ fromMe, body: customerLines[c++ < customerLines.length ? c - 1 : 1 + (c % (customerLines.length - 1))] });
  }
  return { product, order, protocol, lines };
}
