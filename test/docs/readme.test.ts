import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { renderReadmeSections, replaceSections } from '../../src/config/readme-sections.ts';

describe('docs/README', () => {
  it('J1 the configuration table in README.md is generated from the options table (run `npm run docs` when this fails)', () => {
    const readme = readFileSync('README.md', 'utf8');

    expect(readme).to.contain('<!-- generated:options -->');
    expect(replaceSections(readme, renderReadmeSections())).to.equal(readme);
  });

  it('B1 the component inputs table in README.md is generated from templates/*.yml (run `npm run docs` when this fails)', () => {
    const readme = readFileSync('README.md', 'utf8');
    const sections = renderReadmeSections();

    expect(readme).to.contain('<!-- generated:inputs -->');
    expect(sections.inputs).to.contain('| `environment` | string | `auto` |');
    expect(replaceSections(readme, { inputs: sections.inputs! })).to.equal(readme);
  });

  it('the first two commands on a fresh machine are the demo and the tests', () => {
    const readme = readFileSync('README.md', 'utf8');
    const blocks = [...readme.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) =>
      m[1]!.trim(),
    );

    expect(blocks[0]).to.equal('npm ci && npm run demo');
    expect(blocks[1]).to.equal('npm test');
  });
});
