import { Writable } from 'node:stream';

/** A stream handing each chunk as text to `out` (a process's injected stderr). */
export function textSink(out: { write(text: string): unknown }): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.write(chunk.toString('utf8'));
      done();
    },
  });
}
