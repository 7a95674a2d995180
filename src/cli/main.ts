import { CommanderError } from 'commander';
import type { CliIo } from './io.ts';
import { buildProgram, fromCommanderError } from './program.ts';

/** The whole CLI as a function: argv and environment in, exit code out. */
export async function main(io: CliIo): Promise<number> {
  const result = { code: 0 };
  const program = buildProgram(io, result);
  const json = io.argv.includes('--json');
  try {
    if (io.argv.length === 0) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync([...io.argv], { from: 'user' });
    return result.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      const mapped = fromCommanderError(error);
      // commander already printed its own message for usage errors
      return mapped.code;
    }
    // The error catalogue is loaded only when there is an error to report.
    const { reportError } = await import('./errors-out.ts');
    return reportError(io, error, json);
  }
}
