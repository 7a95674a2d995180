import { request } from 'node:http';

/** Small real-HTTP helpers for the bridge tests. */
export const SECRET = 'webhook-secret-0123456789';

export interface Delivery {
  status: number;
  body: Record<string, unknown>;
}

export async function deliver(
  baseUrl: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<Delivery> {
  const response = await fetch(`${baseUrl}/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gitlab-event': 'Note Hook',
      'x-gitlab-token': SECRET,
      ...headers,
    },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/** Like `deliver`, over node:http (lighter than fetch when a test sends a thousand at once). */
export function deliverRaw(baseUrl: string, body: string): Promise<Delivery> {
  const url = new URL(`${baseUrl}/webhook`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-gitlab-event': 'Note Hook',
          'x-gitlab-token': SECRET,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends headers that announce `declaredBytes` (or chunked when undefined),
 * then writes `sendBytes` of body without finishing, and resolves with the
 * status the server answers — proving it answers before the body ends.
 */
export function deliverOversize(
  baseUrl: string,
  sendBytes: number,
  declaredBytes?: number,
): Promise<number> {
  const url = new URL(`${baseUrl}/webhook`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gitlab-token': SECRET,
          ...(declaredBytes === undefined ? {} : { 'content-length': String(declaredBytes) }),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    req.flushHeaders();
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < sendBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once('drain', pump);
      }
    };
    pump();
  });
}
