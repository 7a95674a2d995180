import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../errors/errors.ts';
import { parseTaskYaml, taskFromText, type TaskSpec } from '../../task/task-yaml.ts';
import type { CliIo } from '../io.ts';

export interface RunOptions {
  task?: string;
  taskFile?: string;
  /** Overrides Task YAML `task.repo`; relative to the working folder. */
  repo?: string;
  set?: string[];
  json?: boolean;
}

/** Reads the task from --task, --task-file or stdin, validating it. */
export async function readTask(io: CliIo, options: RunOptions): Promise<TaskSpec> {
  if (options.task !== undefined && options.taskFile !== undefined) {
    throw new UsageError('give either --task or --task-file, not both');
  }
  if (options.task !== undefined) {
    if (options.task.trim() === '') {
      throw new UsageError('the task is empty', {
        where: '--task',
        hint: 'say what to do, e.g. --task "make the importer skip blank rows".',
      });
    }
    return taskFromText(options.task, { repo: options.repo ?? '.' });
  }
  if (options.taskFile) {
    const file = path.resolve(io.cwd, options.taskFile);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read the task file: ${(error as Error).message}`, {
        where: options.taskFile,
        hint: `give the path of a Task YAML file${path.isAbsolute(options.taskFile) ? '' : ` (a relative path is resolved from ${io.cwd})`}.`,
      });
    }
    return parseTaskYaml(text, options.taskFile, io.env);
  }
  const stdin = await io.readStdin();
  if (stdin === undefined || stdin.trim() === '') {
    throw new UsageError('no task given', {
      hint: 'use --task "<text>", --task-file task.yaml, or pipe a Task YAML on stdin.',
    });
  }
  return parseTaskYaml(stdin, '<stdin>', io.env);
}
