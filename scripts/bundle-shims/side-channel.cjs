// What the bundle gives for `side-channel`: the same small store on the
// engine's own WeakMap and Map. qs (gitbeaker's query strings) keeps the
// objects it is walking there to find cycles; the package and the dozen it
// pulls in (get-intrinsic, call-bound, object-inspect, …) are made for engines
// without WeakMap and would load before every job's first GitLab request.
'use strict';
const { inspect } = require('node:util');

const isObject = (key) => (typeof key === 'object' && key !== null) || typeof key === 'function';

module.exports = function getSideChannel() {
  const objects = new WeakMap();
  const others = new Map();
  const storeOf = (key) => (isObject(key) ? objects : others);
  const channel = {
    assert(key) {
      if (!channel.has(key)) {
        const described = isObject(key) ? 'the given object key' : inspect(key);
        throw new TypeError(`Side channel does not contain ${described}`);
      }
    },
    delete: (key) => storeOf(key).delete(key),
    get: (key) => storeOf(key).get(key),
    has: (key) => storeOf(key).has(key),
    set(key, value) {
      storeOf(key).set(key, value);
    },
  };
  return channel;
};
