/**
 * Key builders for the single table (docs/data-model.md). Every tenant item's partition key
 * starts with `C#<companyId>`; code gets the company id only from the verified identity.
 */
export const pad = (n: number) => String(n).padStart(10, '0');

export const keys = {
  company: (cid: number) => ({ PK: `C#${cid}`, SK: 'COMPANY' }),
  companyList: () => 'COMPANIES',
  usage: (cid: number) => ({ PK: `C#${cid}`, SK: 'USAGE' }),
  counter: (cid: number, entity: string) => ({ PK: `C#${cid}`, SK: `COUNTER#${entity}` }),
  globalCounter: (entity: string) => ({ PK: 'COUNTER', SK: entity }),
  plan: (id: number) => ({ PK: 'PLAN', SK: pad(id) }),
  plansPartition: () => 'PLAN',
  user: (cid: number, id: number) => ({ PK: `C#${cid}`, SK: `USER#${pad(id)}` }),
  userPrefix: () => 'USER#',
  identity: (sub: string) => ({ PK: `SUB#${sub}`, SK: 'IDENT' }),
  uniqueEmail: (email: string) => ({ PK: `UNIQ#EMAIL#${email.toLowerCase()}`, SK: 'UNIQ' }),
  uniqueCompanyEmail: (email: string) => ({ PK: `UNIQ#CEMAIL#${email.toLowerCase()}`, SK: 'UNIQ' }),
  queue: (cid: number, id: number) => ({ PK: `C#${cid}`, SK: `QUEUE#${pad(id)}` }),
  queuePrefix: () => 'QUEUE#',
  uniqueQueueColor: (cid: number, color: string) => ({ PK: `C#${cid}`, SK: `UNIQ#QCOLOR#${color.toLowerCase()}` }),
  setting: (cid: number, key: string) => ({ PK: `C#${cid}`, SK: `SETTING#${key}` }),
  settingPrefix: () => 'SETTING#',
  wsConnection: (connectionId: string) => ({ PK: `WS#${connectionId}`, SK: 'CONN' }),
  /** All open sockets of a company (fan-out and presence). */
  wsCompany: (cid: number, connectionId: string) => ({ PK: `C#${cid}#WS`, SK: connectionId }),
  wsCompanyPartition: (cid: number) => `C#${cid}#WS`,
  /** Room membership of a socket. */
  wsRoom: (cid: number, roomName: string, connectionId: string) => ({ PK: `C#${cid}#ROOM#${roomName}`, SK: connectionId }),
  wsRoomPartition: (cid: number, roomName: string) => `C#${cid}#ROOM#${roomName}`,
  /** Platform-wide sockets (announcements reach every company). */
  wsPlatform: (connectionId: string) => ({ PK: 'WS#ALL', SK: connectionId }),
};
