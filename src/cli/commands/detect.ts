import path from 'node:path';
import { escapeInvisible } from '../../errors/visible.ts';
import { detectEnvironment } from '../../phases/environment/detect-environment.ts';
import type { EnvironmentDetection } from '../../core/environment.ts';
import type { CliIo } from '../io.ts';
import { gitTrackedText } from '../../shell/git-tracked.ts';

export interface DetectCommandOptions {
  json?: boolean;
  walk?: boolean;
}

const MAX_LISTED_DEPENDENCIES = 12;

/** The human-readable report of `mr-agent detect`. */
export function formatDetection(dir: string, d: EnvironmentDetection): string {
  const lines = [
    `${dir}: ${d.environment_type}${d.package_manager ? ` (${d.package_manager})` : ''}`,
  ];
  if (d.project_dirs.length > 0) lines.push(`project folders: ${d.project_dirs.join(', ')}`);
  lines.push('why:', ...d.reasons.map((r) => `  - ${r}`));
  if (d.decisions.some((x) => x.evidence.length > 0)) {
    lines.push('evidence:');
    for (const x of d.decisions) {
      lines.push(`  - ${x.topic}: ${x.choice}`);
      for (const e of x.evidence)
        lines.push(`      ${e.line > 0 ? `${e.file}:${e.line}` : e.file}  ${e.text}`);
    }
  }
  if (d.test_command) lines.push(`test command: ${d.test_command.command}`);
  if (d.versions.length > 0) {
    lines.push(
      'version pins:',
      ...d.versions.map((v) => `  - ${v.language} ${v.spec} (${v.source})`),
    );
  }
  const deps = d.dependencies;
  const more =
    deps.length > MAX_LISTED_DEPENDENCIES
      ? `, … ${deps.length - MAX_LISTED_DEPENDENCIES} more`
      : '';
  lines.push(
    `dependencies (${deps.length}): ${deps.slice(0, MAX_LISTED_DEPENDENCIES).join(', ') || 'none'}${more}`,
  );
  lines.push(
    'setup commands:',
    ...(d.setup_commands.length ? d.setup_commands.map((c) => `  $ ${c}`) : ['  (none)']),
  );
  lines.push('verification (stdout must equal the expected text):');
  for (const check of d.verification)
    lines.push(`  $ ${check.command}`, `    → ${JSON.stringify(check.expected_output)}`);
  const files = Object.keys(d.detected_files).filter((f) => f !== '…');
  lines.push(`detected files (${files.length}): ${files.join(', ') || 'none'}`);
  lines.push(
    `listed from the ${d.stats.source === 'git-index' ? 'git index' : 'folder walk'} in ${d.stats.duration_ms} ms`,
  );
  // names and versions come from repository files: no raw NUL, ESC or bidi codes on the terminal
  return `${lines.map(escapeInvisible).join('\n')}\n`;
}

/** `mr-agent detect [dir] [--json] [--walk]`: what the agent would set up, and why. */
export async function detectCommand(
  io: CliIo,
  dir: string,
  options: DetectCommandOptions,
): Promise<number> {
  const root = path.resolve(io.cwd, dir);
  const detection = await detectEnvironment(root, {
    listing: options.walk ? 'walk' : 'auto',
    tracked: (dir) => gitTrackedText(dir),
  });
  if (options.json) io.stdout.write(`${JSON.stringify(detection, null, 2)}\n`);
  else io.stdout.write(formatDetection(dir, detection));
  return 0;
}
