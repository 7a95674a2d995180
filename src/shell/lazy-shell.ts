import type { CommandRequest, CommandResult, Shell } from '../core/shell-port.ts';

/**
 * The execa shell, loaded with the first command it runs: a CI job that
 * runs no command before its progress note does not load execa first
 * (a job's progress note comes sooner).
 */
export function lazyExecaShell(): Shell {
  let shell: Promise<Shell> | undefined;
  return {
    async run(request: CommandRequest): Promise<CommandResult> {
      shell ??= import('./execa-shell.ts').then(({ ExecaShell }) => new ExecaShell());
      return (await shell).run(request);
    },
  };
}
