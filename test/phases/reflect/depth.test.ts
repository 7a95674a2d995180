import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { action, assessment, planWith, reflection } from '../../support/plans.ts';
import { exec, json, toolCall } from '../../support/script.ts';
import { runScenario } from '../../run/scenario.ts';

/** One action whose many failing tool calls trigger a reflection on error. */
async function reflectionPrompts(sets: string[]) {
  const reads = Array.from({ length: 20 }, (_, i) =>
    exec.tools(toolCall('read_file', { path: `missing-${i}.txt` })),
  );
  const { llm } = await runScenario({
    sets: ['planning.reflection.trigger_interval=0', 'execution.max_turns_per_action=30', ...sets],
    steps: [
      json('planning', planWith([action('task_1', 'Read the inputs')])),
      ...reads,
      exec.say('FAILED: the inputs are missing'),
      json('reflection', reflection('failure')),
      json('completion', assessment(true)),
    ],
  });
  llm.assertAllUsed();
  const call = llm.calls.find((c) => c.purpose === 'reflection')!;
  const system = call.messages.find((m) => m.role === 'system')!.content ?? '';
  const user = call.messages.find((m) => m.role === 'user')!.content ?? '';
  return { system, user, toolLines: user.split('\n').filter((l) => l.startsWith('- read_file')) };
}

describe('seed 001 §9.1 planning.reflection.depth changes the reflection prompt', function () {
  this.timeout(30_000);

  it('seed 001 §9.1 reflection.depth: shallow, moderate and deep give three different reflection prompts; moderate is the default', async () => {
    const shallow = await reflectionPrompts(['planning.reflection.depth=shallow']);
    const moderate = await reflectionPrompts(['planning.reflection.depth=moderate']);
    const deep = await reflectionPrompts(['planning.reflection.depth=deep']);
    const byDefault = await reflectionPrompts([]);

    expect(shallow.system).to.contain('## Reflection depth: shallow');
    expect(moderate.system).to.contain('## Reflection depth: moderate');
    expect(deep.system).to.contain('## Reflection depth: deep');
    expect(byDefault.system).to.equal(moderate.system);
    expect(new Set([shallow.system, moderate.system, deep.system]).size).to.equal(3);

    // shallow checks the outcome only; deep asks for causes, side effects and alternatives
    expect(shallow.system).to.match(/do not analyse root causes/i);
    expect(deep.system)
      .to.match(/root cause/i)
      .and.match(/side effects/i)
      .and.match(/alternative/i);
    expect(moderate.system).to.not.match(/do not analyse root causes/i);
  });

  it('seed 001 §9.1 reflection.depth sets how much of the action the reflection sees (tool calls shown)', async () => {
    const shallow = await reflectionPrompts(['planning.reflection.depth=shallow']);
    const moderate = await reflectionPrompts([]);
    const deep = await reflectionPrompts(['planning.reflection.depth=deep']);
    expect([
      shallow.toolLines.length,
      moderate.toolLines.length,
      deep.toolLines.length,
    ]).to.deep.equal([4, 12, 20]);
  });

  it('seed 001 §9.1 the depth rules are a prompt file that prompts.directory can override', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-prompts-'));
    try {
      await mkdir(path.join(dir, 'reflection-depth'));
      await writeFile(
        path.join(dir, 'reflection-depth', 'deep.md'),
        '## Reflection depth: deep (team rules)\n\nAlways check the changelog.\n',
      );
      const { system } = await reflectionPrompts([
        'planning.reflection.depth=deep',
        `prompts.directory=${dir}`,
      ]);
      expect(system).to.contain('Always check the changelog.');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
