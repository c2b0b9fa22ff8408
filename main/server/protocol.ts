/**
 * The contract over a WebSocket, as JSON text messages:
 *   client → server  {id, method, args}           id: a number or a short string the client picks
 *   server → client  {id, ok: true, value}         (value absent when the method returns nothing)
 *                    {id, ok: false, error}        (id null when the message itself was unusable)
 *                    {event: KeelEvent}            everything main pushes, to every connection
 * Messages are capped (MAX_MESSAGE_BYTES; a bigger one closes the socket with 1009).
 */
import type { CallReply, KeelEvent } from '../contract.js';

export const MAX_MESSAGE_BYTES = 1024 * 1024;

export type CallId = number | string;
export interface CallMessage { id: CallId; method: unknown; args: unknown }
export type ServerMessage = ({ id: CallId | null } & CallReply) | { event: KeelEvent };

/** Parses one message from a client, or says why it cannot be used (with its id when one was readable). */
export function parseCall(data: Buffer, isBinary: boolean): CallMessage | { id: CallId | null; error: string } {
  if (isBinary) return { id: null, error: 'Messages must be JSON text, not binary.' };
  let message: unknown;
  try {
    message = JSON.parse(data.toString('utf8'));
  } catch {
    return { id: null, error: 'Messages must be JSON: {"id", "method", "args"}.' };
  }
  if (!message || typeof message !== 'object' || Array.isArray(message)) return { id: null, error: 'A message must be a JSON object {"id", "method", "args"}.' };
  // Own properties only: a key every object inherits is not a field of the message.
  const own = (key: string) => (Object.hasOwn(message, key) ? (message as Record<string, unknown>)[key] : undefined);
  const [id, method, args] = [own('id'), own('method'), own('args')];
  const idOk = (typeof id === 'number' && Number.isSafeInteger(id)) || (typeof id === 'string' && id.length <= 100);
  if (!idOk) return { id: null, error: 'A message needs an "id": an integer or a string of at most 100 characters.' };
  return { id: id as CallId, method, args: args === undefined ? [] : args };
}
