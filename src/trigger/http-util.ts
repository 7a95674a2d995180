import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Small HTTP helpers for the bridge: a constant-time token check and a body
 * reader that stops at a byte limit instead of buffering whatever is sent.
 */

/**
 * Compares `X-Gitlab-Token` with the secret in constant time. Both sides are
 * hashed first, so neither the content nor the length of the secret leaks
 * through timing.
 */
export function tokenMatches(given: string | undefined, secret: string): boolean {
  if (given === undefined || secret === '') return false;
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(secret, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

/** The request's `Content-Length`, when it declares one. */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined) return undefined;
  const value = Number(header);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

export type BodyResult =
  | { kind: 'ok'; body: Buffer }
  | { kind: 'too-large'; declared: boolean }
  | { kind: 'timed-out' }
  | { kind: 'aborted' };

/**
 * Reads the request body up to `maxBytes`. A declared `Content-Length` over
 * the limit is refused before a byte is read; a body that grows past it is
 * refused as soon as it does, and what was read is dropped.
 */
export function readLimitedBody(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs?: number,
  /** After `graceMs`, a body arriving slower than `bytesPerSec` is cut off as timed out. */
  minRate?: { bytesPerSec: number; graceMs: number },
): Promise<BodyResult> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) {
    return Promise.resolve({ kind: 'too-large', declared: true });
  }
  if (req.destroyed) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            chunks.length = 0;
            req.pause();
            finish({ kind: 'timed-out' });
          }, timeoutMs);
    const started = Date.now();
    const rateCheck =
      minRate === undefined
        ? undefined
        : setInterval(() => {
            const elapsed = Date.now() - started;
            if (elapsed < minRate.graceMs) return;
            if (size >= (minRate.bytesPerSec * elapsed) / 1000) return;
            chunks.length = 0;
            req.pause();
            finish({ kind: 'timed-out' });
          }, 100);
    const finish = (result: BodyResult) => {
      clearTimeout(timer);
      clearInterval(rateCheck);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        req.pause();
        finish({ kind: 'too-large', declared: false });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ kind: 'ok', body: Buffer.concat(chunks, size) });
    const onError = () => finish({ kind: 'aborted' });
    const onClose = () => {
      if (!req.complete) finish({ kind: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
    req.on('close', onClose);
  });
}

/** Sends a small JSON answer; `close` asks the client to drop the connection. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: Readonly<Record<string, unknown>>,
  close = false,
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}
