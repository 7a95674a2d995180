import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { commandPlan } from '../../src/ci/commands.ts';
import { parseAgentCommand } from '../../src/commands/parse.ts';
import { helpEntries, helpText } from '../../src/commands/replies.ts';
import { isRunVerb, RUN_VERBS, VERB_NAMES, verbRow, type Verb } from '../../src/commands/verbs.ts';
import { UsageError } from '../../src/errors/errors.ts';
import { LANGUAGES } from '../../src/messages/language.ts';
import { helpLines } from '../../src/report/notes/reply-note.ts';

const TRIGGERS_DOC = path.resolve(import.meta.dirname, '../../docs/triggers.md');

/** The verbs of docs/triggers.md's command table, in its order, with whether each takes an instruction. */
function documentedVerbs(doc: string): Array<{ verb: string; instruction: boolean }> {
  const section = doc.slice(doc.indexOf('## Commands'), doc.indexOf('\nDetails:'));
  return [...section.matchAll(/^\| `\/agent ([^`]*)` \|/gm)].map(([, words]) => {
    const [first = ''] = words!.split(' ');
    return {
      verb: first === '<instruction>' ? 'run' : first,
      instruction: words!.includes('<instruction>'),
    };
  });
}

describe('commands: one table of verbs drives the parser, the help, the job and the docs', () => {
  it('A1 every verb of the table is read from a comment by its syntax', () => {
    for (const verb of VERB_NAMES) {
      const { syntax } = verbRow(verb);
      if (syntax === 'implicit') {
        expect(parseAgentCommand('/agent fix the typo')).to.include({ command: verb });
        continue;
      }
      const withText = parseAgentCommand(`/agent ${verb} the typo`);
      expect(withText, verb).to.include({
        command: syntax === 'instruction' ? verb : 'run',
        instruction: syntax === 'instruction' ? 'the typo' : `${verb} the typo`,
      });
      expect(parseAgentCommand(`/agent ${verb}`), verb).to.include({ command: verb });
    }
  });

  it('/agent continue takes nothing but an amount +$X; anything else is an instruction', () => {
    expect(parseAgentCommand('/agent continue +$2.50')).to.include({
      command: 'continue',
      instruction: '+$2.50',
    });
    expect(parseAgentCommand('/agent continue')).to.include({
      command: 'continue',
      instruction: '',
    });
    expect(parseAgentCommand('/agent continue +$-1')).to.include({ command: 'run' });
    expect(parseAgentCommand('/agent continue with the tests')).to.include({ command: 'run' });
    expect(parseAgentCommand('/agent continue +$2\nand more')).to.include({
      command: 'continue',
      instruction: '+$2',
    });
  });

  it('A6 the help reply lists every verb in the order of the table, in English as before', () => {
    expect(
      helpText('/agent')
        .split('\n')
        .filter((line) => line.startsWith('- ')),
    ).to.deep.equal([
      '- `/agent <instruction>` — make the change you describe and push it here',
      '- `/agent plan <instruction>` — post a plan only; change nothing',
      '- `/agent approve` — carry out the plan posted by `/agent plan`, as written',
      '- `/agent retry` — run the last task again, with its history',
      '- `/agent status` — show the state of the last run',
      '- `/agent pause` — pause the running agent after its current step',
      '- `/agent resume` — carry on a paused run',
      '- `/agent stop` — cancel the running agent pipeline',
      '- `/agent help` — show this list',
      '- `/agent review <instruction>` — review this merge request: findings as threads on the changed lines, with suggestions',
      "- `/agent continue` — go on after a budget stop from the run's checkpoint; `+$X` raises `budget.max_usd` by X for that run",
      "- `/agent address-reviews` — address this merge request's open review threads in one commit, each answered in its thread (resolved when addressed)",
    ]);
  });

  it('A6 the help reply has one translated line per verb in every language', () => {
    for (const language of LANGUAGES) {
      const lines = helpLines({ taskId: '', commandPrefix: '/bot', language }, helpEntries());
      const items = lines.filter((line) => line.startsWith('- '));
      expect(items, language).to.have.length(VERB_NAMES.length);
      VERB_NAMES.forEach((verb, index) => {
        const syntax = verbRow(verb).syntax;
        if (syntax !== 'implicit') expect(items[index], language).to.contain(`\`/bot ${verb}`);
      });
    }
  });

  it('the job carries out exactly the verbs that start a run, by their row', () => {
    expect(RUN_VERBS).to.deep.equal([
      'run',
      'plan',
      'approve',
      'retry',
      'resume',
      'review',
      'continue',
      'address-reviews',
    ]);
    for (const verb of VERB_NAMES) {
      const handling = verbRow(verb).handling;
      if (isRunVerb(verb)) {
        expect(handling.kind).to.equal('run');
        expect(commandPlan(verb)).to.deep.equal(handling.kind === 'run' ? handling.job : {});
      } else {
        expect(() => commandPlan(verb), verb)
          .to.throw(UsageError, 'is not a command the agent carries out in a job')
          .with.property(
            'hint',
            'one of run, plan, approve, retry, resume, review, continue, address-reviews.',
          );
      }
    }
    expect(() => commandPlan('toString')).to.throw(UsageError);
  });

  it('docs/triggers.md lists every verb of the table, in its order, with its syntax', async () => {
    const doc = await readFile(TRIGGERS_DOC, 'utf8');
    expect(documentedVerbs(doc)).to.deep.equal(
      VERB_NAMES.map((verb) => ({
        verb,
        instruction: ['implicit', 'instruction'].includes(verbRow(verb).syntax),
      })),
    );
    const alone = /^- ((?:`[\w-]+`(?:, | and ))+`[\w-]+`) are commands only when/m.exec(doc);
    const named = [...(alone?.[1] ?? '').matchAll(/`([\w-]+)`/g)].map((match) => match[1]);
    const aloneVerbs: Verb[] = VERB_NAMES.filter((verb) => verbRow(verb).syntax === 'alone');
    expect(named).to.have.members(aloneVerbs);
  });
});
