import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENVIRONMENT_KINDS } from '../../src/phases/environment/registry.ts';

/**
 * #21 / O10: every image the project publishes (images/<name>/Dockerfile) starts
 * from bases pinned by version or digest and installs pinned tools. The
 * bridge runs as a non-root user; the runner images run mr-agent as root and
 * the commands it takes from the model or the repository as the unprivileged
 * user `agent` (issue 19 §3).
 */
const IMAGES = path.resolve(import.meta.dirname, '../../images');

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with line continuations joined and comments dropped. */
export function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

/** `ARG NAME=value` defaults, for the `FROM ${NAME}` lines. */
function argDefaults(list: readonly Instruction[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { keyword, args } of list) {
    const m = /^(\w+)=(\S+)$/.exec(args);
    if (keyword === 'ARG' && m) out[m[1]!] ??= m[2]!;
  }
  return out;
}

/** Why an image reference is not pinned, or undefined when it is. */
export function unpinned(image: string): string | undefined {
  const [name, digest] = image.split('@');
  if (digest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(digest)) return 'malformed digest';
  const tag = /:([^/:]+)$/.exec(name!)?.[1];
  if (tag === undefined) return digest ? undefined : 'no tag';
  if (tag === 'latest') return 'the `latest` tag';
  if (!/\d+\.\d+/.test(tag)) return `tag "${tag}" names no version (major.minor at least)`;
  return undefined;
}

interface Stage {
  image: string;
  alias: string | undefined;
  body: Instruction[];
}

function stages(list: readonly Instruction[]): Stage[] {
  const defaults = argDefaults(list);
  const out: Stage[] = [];
  for (const ins of list) {
    if (ins.keyword === 'FROM') {
      const [ref, as, alias] = ins.args.split(/\s+/);
      const image = ref!.replace(/\$\{?(\w+)\}?/g, (_, n: string) => defaults[n] ?? `$${n}`);
      out.push({ image, alias: as?.toUpperCase() === 'AS' ? alias : undefined, body: [] });
    } else out.at(-1)?.body.push(ins);
  }
  return out;
}

const dockerfiles = readdirSync(IMAGES)
  .filter((name) => readdirSync(path.join(IMAGES, name)).includes('Dockerfile'))
  .map((name) => ({
    name,
    list: instructions(readFileSync(path.join(IMAGES, name, 'Dockerfile'), 'utf8')),
  }));

describe('#21 O10 images/*/Dockerfile', () => {
  it("finds every registered environment's runner image and the bridge", () => {
    expect(dockerfiles.map((d) => d.name).sort()).to.deep.equal(
      [...ENVIRONMENT_KINDS.map((k) => k.name), 'bridge'].sort(),
    );
  });

  for (const { name, list } of dockerfiles) {
    it(`#21 ${name}: every base image is pinned by version or digest, never \`latest\``, () => {
      const all = stages(list);
      const aliases = new Set(all.map((s) => s.alias).filter(Boolean));

      for (const stage of all) {
        if (aliases.has(stage.image)) continue;
        expect(unpinned(stage.image), stage.image).to.equal(undefined);
      }
    });

    const lastUser = () =>
      stages(list)
        .at(-1)!
        .body.filter((i) => i.keyword === 'USER')
        .at(-1)
        ?.args.split(':')[0];

    if (name === 'bridge') {
      it(`#21 ${name}: the final stage runs as a non-root user`, () => {
        expect(lastUser(), 'the last USER of the final stage').to.be.a('string');
        expect(['root', '0']).not.to.include(lastUser());
      });
    } else {
      it(`${name}: mr-agent runs as root and the commands' user \`agent\` exists, unprivileged (issue 19 §3)`, () => {
        expect(['root', '0', undefined]).to.include(lastUser());
        const runs = list.filter((i) => i.keyword === 'RUN').map((i) => i.args);
        const useradd = runs
          .map((r) => /useradd\s[^&;]*--uid (\d+)[^&;]*\sagent\b/.exec(r))
          .find(Boolean);
        expect(useradd, 'useradd … agent').to.not.equal(undefined);
        expect(Number(useradd![1])).to.be.greaterThan(999);
        expect(list).to.deep.include({ keyword: 'ENV', args: 'MR_AGENT_COMMAND_USER=agent' });
      });

      it(`${name}: nothing root runs or loads is writable by the commands' user (issue 19 §3)`, () => {
        const text = list.map((i) => `${i.keyword} ${i.args}`).join('\n');
        expect(text).not.to.match(/chmod\s+(-R\s+)?[ao]\+[rwX]*w/);
        expect(text).not.to.match(/chmod\s+(-R\s+)?0?7?77\b/);
        for (const m of text.matchAll(/chown\s+(?:-R\s+)?agent(?::agent)?\s+([^&;\n]+)/g))
          for (const target of m[1]!.trim().split(/\s+/))
            expect(target, 'a folder given to agent').not.to.match(
              /^\/(usr|opt\/mr-agent|opt\/conda\/bin|bin|etc)/,
            );
        const path = list
          .filter((i) => i.keyword === 'ENV' && i.args.includes('PATH='))
          .map((i) => i.args);
        expect(path.join(' ')).not.to.match(/\/home\//);
      });
    }

    it(`#21 ${name}: tools are installed at pinned versions`, () => {
      const runs = list.filter((i) => i.keyword === 'RUN').map((i) => i.args);
      for (const run of runs) {
        for (const m of run.matchAll(/pip install ([^&;]+)/g)) {
          const packages = m[1]!.split(/\s+/).filter((w) => w !== '' && !w.startsWith('-'));
          for (const pkg of packages) expect(pkg, run).to.match(/==/);
        }
        for (const m of run.matchAll(/npm (?:install|i) (?:-g|--global) ([^&;]+)/g)) {
          for (const pkg of m[1]!.split(/\s+/).filter(Boolean)) expect(pkg, run).to.match(/.@\d/);
        }
      }
    });
  }

  it('#21 the check itself refuses unpinned bases', () => {
    expect(unpinned('condaforge/miniforge3:latest')).to.equal('the `latest` tag');
    expect(unpinned('node')).to.equal('no tag');
    expect(unpinned('node:24-slim')).to.match(/names no version/);
    expect(unpinned('golang:1.24.9-bookworm')).to.equal(undefined);
    expect(unpinned(`node@sha256:${'a'.repeat(64)}`)).to.equal(undefined);
    expect(unpinned(`python:3.12.12@sha256:${'b'.repeat(64)}`)).to.equal(undefined);
  });
});
