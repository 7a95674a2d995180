// Preloaded with `node --import` by the start-path tests: records the URL of
// every module the process loads and writes the list, as JSON, to the file
// named by LOADED_MODULES_OUT when the process exits.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  if (process.env.LOADED_MODULES_OUT) {
    writeFileSync(process.env.LOADED_MODULES_OUT, JSON.stringify(loaded));
  }
});
