// Preloaded with `node --import` by the start-path tests: records the URL of
// every module the process loads and writes the list, as JSON, to the file
// named by LOADED_MODULES_OUT when the process exits. With
// LOADED_MODULES_TIMES_OUT it also writes `[{ url, at }]`, `at` being when the
// load began (ms since the epoch, wall clock), in load order.
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
process.on('exit', () => {
  if (process.env.LOADED_MODULES_OUT) {
    writeFileSync(process.env.LOADED_MODULES_OUT, JSON.stringify(loaded));
  }
  if (process.env.LOADED_MODULES_TIMES_OUT) {
    writeFileSync(process.env.LOADED_MODULES_TIMES_OUT, JSON.stringify(times));
  }
});
