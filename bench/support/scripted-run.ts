// The scripted model of a run of `n` actions for the benches: a plan of n
// actions (at most 5 subtasks), and for each action a read of its 4 kB module,
// a rewrite of it and DONE; reflections, reviews (PASS) and the completion
// assessment answer whenever they are asked. With `bigCommand`, the first
// action runs that command first. The project holds the n modules.
import { reflection, action, assessment, planWith } from '../../test/support/plans.ts';

export function moduleFiles(n: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# app\n', 'package.json': '{}\n' };
  for (let i = 1; i <= n; i++) files[`src/mod_${i}.ts`] = `// module\n${'y'.repeat(4000)}\n`;
  return files;
}

export function scriptedRun(n: number, bigCommand?: string): unknown[] {
  const actions = Array.from({ length: n }, (_, i) =>
    action(`task_${(i % 5) + 1}`, `Rewrite src/mod_${i + 1}.ts with the new API`),
  );
  const execution: unknown[] = [];
  for (let i = 1; i <= n; i++) {
    if (i === 1 && bigCommand) {
      execution.push(call('run_command', { command: bigCommand }));
    }
    execution.push(
      call('read_file', { path: `src/mod_${i}.ts` }),
      call('write_file', { path: `src/mod_${i}.ts`, content: `// updated\n${'x'.repeat(4000)}\n` }),
      { purpose: 'execution', content: `DONE: updated src/mod_${i}.ts` },
    );
  }
  return [
    { purpose: 'planning', json: planWith(actions, ['Every module is updated']) },
    ...execution,
    { purpose: 'reflection', times: 0, json: reflection('success') },
    { purpose: 'review.*', times: 0, content: '{"result": "PASS", "feedback": ""}' },
    { purpose: 'completion', times: 0, json: assessment(true) },
  ];
}

function call(name: string, args: Record<string, string>) {
  return { purpose: 'execution', tool_calls: [{ name, arguments: args }] };
}
