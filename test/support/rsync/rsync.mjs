#!/usr/bin/env node
// A local-only stand-in for `rsync`, covering what gitlab-ci-local runs on the shell
// executor: `-a`/`-r`/`-R`, `--delete`, `--delete-excluded`, `--exclude`,
// `--exclude-from` and `--files-from`, between folders of this machine. The component
// tests put it first on PATH, so they need nothing beyond Node, npm and git.
import { lstatSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { copyEntry, removeUnlisted } from './copy.mjs';
import { excluder } from './patterns.mjs';

/** Exit code of rsync for "some files could not be transferred". */
const PARTIAL = 23;
const USAGE = 1;

function readList(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith(';'));
}

/** Splits `-rRa`, `--exclude=x`, `--exclude x`, … into options and operands. */
export function parseArgs(argv) {
  const opts = { recursive: false, relative: false, del: false, delExcluded: false };
  const excludes = [];
  const operands = [];
  let filesFrom;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [name, inline] = arg.startsWith('--') ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (name === '--exclude') excludes.push(value());
    else if (name === '--exclude-from') excludes.push(...readList(value()));
    else if (name === '--files-from') filesFrom = value();
    else if (name === '--delete') opts.del = true;
    else if (name === '--delete-excluded') opts.delExcluded = opts.del = true;
    else if (name === '--archive') opts.recursive = true;
    else if (name === '--recursive') opts.recursive = true;
    else if (name === '--relative') opts.relative = true;
    else if (/^-[a-zA-Z]+$/.test(name)) {
      if (/[ar]/.test(name)) opts.recursive = true;
      if (name.includes('R')) opts.relative = true;
    } else if (name.startsWith('-')) throw new Error(`unsupported option ${name}`);
    else operands.push(arg);
  }
  return { opts, excludes, operands, filesFrom };
}

/** Where a source lands: `-R` keeps its path (after a `/./` marker), else only its name. */
function plan(source, relative) {
  const contentsOnly = source.endsWith('/') || source.endsWith('/.') || source === '.';
  if (relative) {
    const marker = source.lastIndexOf('/./');
    const rel = marker >= 0 ? source.slice(marker + 3) : source.replace(/^(\.\/)+/, '');
    return { from: source, to: path.normalize(rel).replace(/^(\.\.\/)+/, '') };
  }
  return { from: source, to: contentsOnly ? '.' : path.basename(path.resolve(source)) };
}

function transfer({ opts, excludes, operands, filesFrom }) {
  if (operands.length < 2) throw new Error('need a source and a destination');
  const dest = operands.at(-1);
  const sources = operands.slice(0, -1);
  const excluded = excluder(excludes);
  const ctx = { recursive: opts.recursive, excluded };
  let failed = 0;
  const jobs = filesFrom
    ? readList(filesFrom).map((rel) => ({
        from: path.join(sources[0], rel),
        to: path.normalize(rel),
      }))
    : sources.map((source) => plan(source, opts.relative));
  for (const job of jobs) {
    if (!existsSync(job.from) && !isLink(job.from)) {
      process.stderr.write(
        `rsync: link_stat "${path.resolve(job.from)}" failed: No such file or directory (2)\n`,
      );
      failed += 1;
      continue;
    }
    copyEntry(ctx, job.from, dest, job.to);
    if (opts.del && job.to === '.') removeUnlisted(ctx, job.from, dest, '', opts.delExcluded);
  }
  return failed === 0 ? 0 : PARTIAL;
}

function isLink(file) {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

try {
  process.exitCode = transfer(parseArgs(process.argv.slice(2)));
} catch (error) {
  process.stderr.write(`rsync (mr-agent test stand-in): ${error.message}\n`);
  process.exitCode = USAGE;
}
