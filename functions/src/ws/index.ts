import type { APIGatewayProxyWebsocketEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { room, WS_CLIENT_ACTIONS, WS_JOINED_EVENT, type WsClientAction } from '@balcao/shared';
import { publish } from '../core/realtime.js';
import { verifyToken, sessionOf } from '../core/jwt.js';
import { assertCompanyActive, isCurrentSession, loadCompanyAndPlan, loadUserBySub } from '../core/identity.js';
import { getItem } from '../core/db.js';
import { keys } from '../table/keys.js';
import { log } from '../core/observability.js';
import { dropConnection, getConnection, joinRoom, leaveRoom, refreshConnection, registerConnection } from '../services/presence.js';
import { type UserItem } from '../table/items.js';
import { lambdaHandler } from '../core/lambda.js';

type ConnectEvent = APIGatewayProxyWebsocketEventV2 & { queryStringParameters?: Record<string, string | undefined> };
type Result = Exclude<APIGatewayProxyResultV2, string>;

const TICKET_STATUSES = new Set(['pending', 'open', 'closed', 'group']);

/** `$connect ?token=`: refused with 401 unless the token is valid and its session is current. */
export const connect = lambdaHandler(async function connect(event: ConnectEvent): Promise<Result> {
  const token = event.queryStringParameters?.token;
  if (!token) return { statusCode: 401 };
  try {
    const claims = await verifyToken(token);
    const user = await loadUserBySub(claims.sub);
    if (!user || !isCurrentSession(user, claims)) return { statusCode: 401 };
    const { company } = await loadCompanyAndPlan(user.companyId);
    assertCompanyActive(company, user.super === true);
    await registerConnection(event.requestContext.connectionId, user, sessionOf(claims).id);
    return { statusCode: 200 };
  } catch (err) {
    log.info('websocket connect refused', { err: (err as Error).message });
    return { statusCode: 401 };
  }
});

export const disconnect = lambdaHandler(async function disconnect(event: APIGatewayProxyWebsocketEventV2): Promise<Result> {
  await dropConnection(event.requestContext.connectionId);
  return { statusCode: 200 };
});

/** `$default`: the client's actions (we route them ourselves; DESIGN §9). */
export const message = lambdaHandler(async function message(event: APIGatewayProxyWebsocketEventV2): Promise<Result> {
  let frame: { action?: string; [k: string]: unknown };
  try {
    frame = JSON.parse(event.body ?? '{}');
  } catch {
    return { statusCode: 400 };
  }
  const action = frame.action as WsClientAction;
  if (!WS_CLIENT_ACTIONS.includes(action)) return { statusCode: 400 };
  const conn = await getConnection(event.requestContext.connectionId);
  if (!conn) return { statusCode: 410 };
  switch (action) {
    case 'ping':
      return { statusCode: 200 };
    case 'userStatus': {
      const user = await getItem<UserItem>(keys.user(conn.companyId, conn.userId));
      if (user) await refreshConnection(conn, user);
      return { statusCode: 200 };
    }
    case 'joinNotification':
      // Notifications and the ticket lists are served to every socket of the company that may see
      // the ticket (issue 23): these rooms would be written and never read. Accepted for consoles
      // that still send them.
      return { statusCode: 200 };
    case 'joinTickets':
    case 'leaveTickets':
      return TICKET_STATUSES.has(String(frame.status ?? '')) ? { statusCode: 200 } : { statusCode: 400 };
    case 'joinChatBox':
    case 'leaveChatBox': {
      // Membership is harmless on its own: every ticket event is filtered by visibility at fan-out.
      const ticketId = Number(frame.ticketId ?? frame.id);
      if (!Number.isSafeInteger(ticketId) || ticketId <= 0) return { statusCode: 400 };
      if (action === 'leaveChatBox') {
        await leaveRoom(conn, room.chatBox(ticketId));
        return { statusCode: 200 };
      }
      // The answer tells the console the conversation's stream is live from now: it reads the
      // newest page once more, so nothing sent between its first read and the join is missed.
      if (await joinRoom(conn, room.chatBox(ticketId))) {
        await publish({ companyId: conn.companyId, event: WS_JOINED_EVENT, data: { room: room.chatBox(ticketId) }, audience: [{ kind: 'connection', connectionId: conn.connectionId }] });
      }
      return { statusCode: 200 };
    }
  }
  return { statusCode: 400 };
});
