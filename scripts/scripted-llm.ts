/**
 * `npm run scripted-llm -- --scenario FILE [--port N] [--host H] [--api-key KEY]`:
 * the scripted OpenAI-compatible server of the demo and the tests
 * (src/testkit/openai-server/), on its own. Prints its port and base URL,
 * logs each request's purpose, and stops on Ctrl-C or SIGTERM, naming the
 * scripted replies that were never used.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadScenario } from '../src/testkit/openai-server/scenario.ts';
import { startScriptedOpenAiServer } from '../src/testkit/openai-server/server.ts';

const USAGE =
  'usage: npm run scripted-llm -- --scenario FILE [--port N] [--host 127.0.0.1] [--api-key KEY]';

function fail(message: string): never {
  process.stderr.write(`scripted-llm: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      options: {
        scenario: { type: 'string' },
        port: { type: 'string', default: '0' },
        host: { type: 'string', default: '127.0.0.1' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
}

async function main(): Promise<void> {
  const args = options();
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!args.scenario) fail('--scenario is required: the YAML file of scripted replies');
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    fail(`--port must be a whole number from 0 to 65535, not ${JSON.stringify(args.port)}`);
  let text: string;
  try {
    text = await readFile(args.scenario, 'utf8');
  } catch (error) {
    fail(`cannot read the scenario ${args.scenario}: ${(error as Error).message}`);
  }
  let scenario;
  try {
    scenario = loadScenario(text, args.scenario);
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    fail(`${(error as Error).message}${hint ? `: ${hint}` : ''}`);
  }
  const server = await startScriptedOpenAiServer({
    scenario,
    host: args.host,
    port,
    ...(args['api-key'] ? { apiKey: args['api-key'] } : {}),
  }).catch((error: unknown) => fail(`cannot listen: ${(error as Error).message}`));
  const actual = new URL(server.url).port;
  process.stdout.write(`port ${actual}\nOPENAI_BASE_URL=${server.url}\n`);
  let logged = 0;
  const flush = () => {
    for (const request of server.requests.slice(logged))
      process.stdout.write(
        `#${request.sequence} ${request.path} purpose=${request.purpose ?? '-'}\n`,
      );
    logged = server.requests.length;
  };
  const tail = setInterval(flush, 200);
  const stop = async () => {
    clearInterval(tail);
    flush();
    const unused = server.unusedReplies();
    await server.close();
    if (unused.length > 0) process.stdout.write(`unused replies: ${unused.join('; ')}\n`);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

await main();
