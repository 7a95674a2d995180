// winston-transport's `require('readable-stream/lib/_stream_writable.js')`:
// Node's own Writable (see readable-stream.mjs beside this file).
module.exports = require('node:stream').Writable;
