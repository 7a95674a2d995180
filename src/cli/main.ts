import type { CliIo } from './io.ts';
import { plainCiStep } from './ci-argv.ts';

/** The whole CLI as a function: argv and environment in, exit code out. */
export async function main(io: CliIo): Promise<number> {
  const json = io.argv.includes('--json');
  try {
    // the component's jobs run `mr-agent ci` as it is: the job starts without the parser
    const step = plainCiStep(io.argv);
    if (step) {
      const { ciCommand } = await import('./commands/ci.ts');
      return await ciCommand(io, { step });
    }
    return await throughProgram(io);
  } catch (error) {
    // The error catalogue is loaded only when there is an error to report.
    const { reportError } = await import('./errors-out.ts');
    return reportError(io, error, json);
  }
}

/** Every other command line, read by commander. */
async function throughProgram(io: CliIo): Promise<number> {
  const [{ CommanderError }, { buildProgram, fromCommanderError }] = await Promise.all([
    import('commander'),
    import('./program.ts'),
  ]);
  const result = { code: 0 };
  const program = buildProgram(io, result);
  if (io.argv.length === 0) {
    program.outputHelp();
    return 2;
  }
  try {
    await program.parseAsync([...io.argv], { from: 'user' });
    return result.code;
  } catch (error) {
    // commander already printed its own message for usage errors
    if (error instanceof CommanderError) return fromCommanderError(error).code;
    throw error;
  }
}
