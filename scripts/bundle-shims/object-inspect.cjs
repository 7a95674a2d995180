// What the bundle gives for `object-inspect`: Node's own `util.inspect`.
// Only qs's side-channel packages require it, to name a missing key in an
// error message; the package (36 KB) would otherwise load before every job's
// first GitLab request.
'use strict';
const { inspect } = require('node:util');

module.exports = function objectInspect(value) {
  return inspect(value);
};
