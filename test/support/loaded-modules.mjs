// Preloaded with `node --import` by the start-path tests: records the URL of
// every module the process loads and writes the list, as JSON, to the file
// named by LOADED_MODULES_OUT when the process exits. With
// LOADED_MODULES_TIMES_OUT it also writes `[{ url, at }]`, `at` being when the
// load began (ms since the epoch, wall clock), in load order. With
// INTL_FORMATTERS_OUT it writes `[{ name, at }]` for every `Intl` formatter
// built (NumberFormat, DateTimeFormat, …) or locale-sensitive method called
// (localeCompare, toLocaleString, …): the first one in a process loads ICU's
// locale data, tens of milliseconds. With FUNCTIONS_OUT it writes
// `[{ at }]` for every function compiled from a string (`new Function`).
// With FETCH_OUT it writes `[{ name, at }]` for every first use of Node's
// fetch API (fetch, Request, Response, Headers, FormData): the first loads
// undici, Node's HTTP client behind it, tens of milliseconds.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = [];
const times = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    times.push({ url, at: Date.now() });
    return nextLoad(url, context);
  },
});

const formatters = [];
if (process.env.INTL_FORMATTERS_OUT) {
  const names = [
    'NumberFormat',
    'DateTimeFormat',
    'ListFormat',
    'RelativeTimeFormat',
    'DurationFormat',
    'Collator',
    'Segmenter',
    'DisplayNames',
  ];
  for (const name of names) {
    const Formatter = Intl[name];
    if (typeof Formatter !== 'function') continue;
    Intl[name] = new Proxy(Formatter, {
      construct(target, args, newTarget) {
        formatters.push({ name, at: Date.now() });
        return Reflect.construct(target, args, newTarget === Intl[name] ? target : newTarget);
      },
    });
  }
  // the locale-sensitive methods build one of these formatters inside
  const methods = [
    [String.prototype, 'localeCompare'],
    [Number.prototype, 'toLocaleString'],
    [Date.prototype, 'toLocaleString'],
    [Date.prototype, 'toLocaleDateString'],
    [Date.prototype, 'toLocaleTimeString'],
  ];
  for (const [prototype, method] of methods) {
    const original = prototype[method];
    prototype[method] = function (...args) {
      formatters.push({ name: method, at: Date.now() });
      return original.apply(this, args);
    };
  }
}

const functions = [];
if (process.env.FUNCTIONS_OUT) {
  const Compiled = Function;
  globalThis.Function = new Proxy(Compiled, {
    construct(target, args, newTarget) {
      functions.push({ at: Date.now() });
      return Reflect.construct(
        target,
        args,
        newTarget === globalThis.Function ? target : newTarget,
      );
    },
    apply(target, self, args) {
      functions.push({ at: Date.now() });
      return Reflect.apply(target, self, args);
    },
  });
}

const fetchUses = [];
if (process.env.FETCH_OUT) {
  for (const name of ['fetch', 'Request', 'Response', 'Headers', 'FormData']) {
    const own = Object.getOwnPropertyDescriptor(globalThis, name);
    if (!own) continue;
    let seen = false;
    const read = own.get ? () => own.get.call(globalThis) : () => own.value;
    Object.defineProperty(globalThis, name, {
      configurable: true,
      enumerable: own.enumerable,
      get() {
        if (!seen) fetchUses.push({ name, at: Date.now() });
        seen = true;
        return read();
      },
      set(value) {
        Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
      },
    });
  }
}

process.on('exit', () => {
  if (process.env.FETCH_OUT) {
    writeFileSync(process.env.FETCH_OUT, JSON.stringify(fetchUses));
  }
  if (process.env.LOADED_MODULES_OUT) {
    writeFileSync(process.env.LOADED_MODULES_OUT, JSON.stringify(loaded));
  }
  if (process.env.LOADED_MODULES_TIMES_OUT) {
    writeFileSync(process.env.LOADED_MODULES_TIMES_OUT, JSON.stringify(times));
  }
  if (process.env.INTL_FORMATTERS_OUT) {
    writeFileSync(process.env.INTL_FORMATTERS_OUT, JSON.stringify(formatters));
  }
  if (process.env.FUNCTIONS_OUT) {
    writeFileSync(process.env.FUNCTIONS_OUT, JSON.stringify(functions));
  }
});
