/**
 * Where a command writes its stdout and stderr: one local socket per stream,
 * read into a single reused buffer (`net.Socket`'s `onread`), so reading a
 * gigabyte of output allocates nothing per chunk and memory stays flat.
 * A pipe read the usual way gets a fresh 64 KiB buffer per read,
 * and the garbage grows by tens of megabytes before a collection frees it.
 *
 * The socket has a random name (abstract on Linux, leaving no file behind);
 * the connection handed to the command is the one whose random token our
 * reader received, so another local process that connects first cannot take
 * a command's output.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const READ_BUFFER_BYTES = 64 * 1024;
const TOKEN_BYTES = 16;

export interface OutputChannels {
  /** The sockets to give the command as stdout and stderr. */
  childEnds: net.Socket[];
  /** Closes this process's copies of the command's ends (call once it is spawned). */
  release(): void;
  /** Resolves when every stream has ended (the command and its children closed them). */
  finished: Promise<void>;
}

function address(): string {
  const name = `mr-agent-out-${randomBytes(12).toString('hex')}`;
  return process.platform === 'linux' ? `\0${name}` : path.join(os.tmpdir(), `${name}.sock`);
}

/** The reading end: a client whose first bytes are the token its accepted peer sent. */
function connectReader(where: string, onData: (bytes: Buffer) => void) {
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let token = Buffer.alloc(0);
  let gotToken: (token: Buffer) => void = () => undefined;
  const tokenSeen = new Promise<Buffer>((resolve) => (gotToken = resolve));
  const reader = net.connect({
    path: where,
    onread: {
      buffer,
      callback: (length, chunk) => {
        let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, length);
        if (token.length < TOKEN_BYTES) {
          const part = bytes.subarray(0, TOKEN_BYTES - token.length);
          token = Buffer.concat([token, part]);
          bytes = bytes.subarray(part.length);
          if (token.length === TOKEN_BYTES) gotToken(token);
        }
        if (bytes.length > 0) onData(bytes);
        return true;
      },
    },
  });
  const ended = new Promise<void>((resolve) => {
    reader.once('close', () => resolve());
    reader.once('error', () => resolve());
  });
  const failed = new Promise<never>((_, reject) => reader.once('error', reject));
  return { tokenSeen: Promise.race([tokenSeen, failed]), ended };
}

/**
 * One channel: every connection the server accepts is sent its own token
 * and never read from (`pauseOnConnect`); the one whose token our reader
 * received is ours and goes to the command, any other is closed.
 */
async function openOne(
  server: net.Server,
  where: string,
  onData: (bytes: Buffer) => void,
): Promise<{ childEnd: net.Socket; ended: Promise<void> }> {
  const accepted = new Map<string, net.Socket>();
  const onConnection = (socket: net.Socket) => {
    const token = randomBytes(TOKEN_BYTES);
    accepted.set(token.toString('hex'), socket);
    socket.on('error', () => socket.destroy());
    socket.write(token);
  };
  server.on('connection', onConnection);
  try {
    const { tokenSeen, ended } = connectReader(where, onData);
    const token = (await tokenSeen).toString('hex');
    const childEnd = accepted.get(token)!;
    for (const [key, socket] of accepted) if (key !== token) socket.destroy();
    return { childEnd, ended };
  } finally {
    server.off('connection', onConnection);
  }
}

/** One channel per stream; `onData(stream, bytes)` gets bytes valid only during the call. */
export async function openOutputChannels(
  streams: number,
  onData: (stream: number, bytes: Buffer) => void,
): Promise<OutputChannels> {
  const where = address();
  const server = net.createServer({ pauseOnConnect: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where, resolve);
  });
  const opened: { childEnd: net.Socket; ended: Promise<void> }[] = [];
  try {
    for (let i = 0; i < streams; i++)
      opened.push(await openOne(server, where, (bytes) => onData(i, bytes)));
    const childEnds = opened.map((o) => o.childEnd);
    return {
      childEnds,
      release: () => childEnds.forEach((s) => s.destroy()),
      finished: Promise.all(opened.map((o) => o.ended)).then(() => undefined),
    };
  } catch (error) {
    // the channels opened so far are closed, so their readers end too
    for (const o of opened) o.childEnd.destroy();
    throw error;
  } finally {
    server.close();
  }
}
