import type { IncomingMessage, ServerResponse } from 'node:http';

/** Small HTTP helpers of the scripted OpenAI server. */

/** The text of a chat message for matching: its content (string or parts) and tool-call arguments. */
export function messageText(message: Record<string, unknown>): string {
  const parts: string[] = [];
  const content = message['content'];
  if (typeof content === 'string') parts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      const text = (part as { text?: unknown }).text;
      if (typeof text === 'string') parts.push(text);
    }
  }
  const calls = message['tool_calls'];
  if (Array.isArray(calls)) {
    for (const call of calls)
      parts.push(JSON.stringify((call as { function?: unknown }).function ?? call));
  }
  return parts.join('\n');
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The body as text, or undefined when it is over `limit` (the rest is read and dropped). */
export async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // keep reading so the client gets the answer instead of a reset connection
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size > limit ? undefined : Buffer.concat(chunks).toString('utf8');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': `req_scripted_${Date.now().toString(36)}`,
    ...headers,
  });
  res.end(text);
}
