// What the bundle gives winston for `readable-stream`: Node's own `stream`
// module. readable-stream 3 is a copy of Node 10's streams for older Nodes;
// bundled, it is 80 KB that every job loads and runs before its first progress
// note, next to the streams Node already has (winston's Logger is a Transform,
// its transports Writables, all on the same API).
export {
  Duplex,
  PassThrough,
  Readable,
  Stream,
  Transform,
  Writable,
  finished,
  pipeline,
} from 'node:stream';
