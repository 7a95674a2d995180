/**
 * The execution environments, one line each. An environment is a folder
 * under `kinds/` (see `kinds/kind.ts` for what it declares); the shared
 * machinery — detection, selection, setup, the runner, the test command and
 * the CI job — reads them from here and names none. The keys must be
 * `ENVIRONMENTS` of src/config/options.ts (the type checks it), and the
 * order is theirs. docs/architecture.md, "Add an environment", walks through
 * a new one.
 */
import type { EnvironmentName } from '../../core/environment.ts';
import type { EvidenceVocabulary } from './detect/evidence.ts';
import { fileTable, type FileTable } from './detect/files.ts';
import type { DecisionKinds } from './detect/decide.ts';
import { go } from './kinds/go/kind.ts';
import { java } from './kinds/java/kind.ts';
import type { EnvironmentKind } from './kinds/kind.ts';
import { miniforge } from './kinds/miniforge/kind.ts';
import { node } from './kinds/node/kind.ts';
import { python } from './kinds/python/kind.ts';

const KINDS: { readonly [N in EnvironmentName]: EnvironmentKind<N> } = {
  python,
  miniforge,
  node,
  java,
  go,
};

/** Every environment, in the order of `ENVIRONMENTS`. */
export const ENVIRONMENT_KINDS: readonly EnvironmentKind[] = Object.values(KINDS);

/** The environment chosen when a repository has no project files. */
export const DEFAULT_ENVIRONMENT: EnvironmentName = 'python';

export function kindOf(name: EnvironmentName): EnvironmentKind {
  return KINDS[name];
}

/** What detection needs of a set of environments: files, evidence words, ranking. */
export interface DetectionKinds {
  kinds: readonly EnvironmentKind[];
  files: FileTable;
  vocabulary: EvidenceVocabulary;
  decision: DecisionKinds;
}

/** Builds detection's tables from a set of environments (the registry's, or a test's). */
export function detectionKinds(
  kinds: readonly EnvironmentKind[],
  fallback: EnvironmentName = DEFAULT_ENVIRONMENT,
): DetectionKinds {
  const words = [...kinds.flatMap((k) => k.toolWords), 'make', 'just'];
  return {
    kinds,
    files: fileTable(kinds.map((k) => ({ ...k.files, environment: k.name }))),
    vocabulary: {
      rules: kinds.flatMap((k) => k.commands),
      toolWord: new RegExp(`\\b(?:${words.join('|')})\\b`),
      ci: {
        setupActions: kinds.flatMap((k) =>
          (k.ci?.setupActions ?? []).map((a) => ({ ...a, environment: k.name })),
        ),
        images: kinds.flatMap((k) =>
          k.ci?.image ? [{ environment: k.name, match: k.ci.image }] : [],
        ),
        travis: kinds.flatMap((k) =>
          k.ci?.travisKey
            ? [{ key: k.ci.travisKey, language: k.language, environment: k.name }]
            : [],
        ),
      },
      mise: Object.fromEntries(
        kinds.flatMap((k) => (k.toolNames ?? []).map((n) => [n, [k.language, k.name] as const])),
      ),
    },
    decision: { kinds, fallback },
  };
}

/** Detection's tables of the registered environments. */
export const DETECTION_KINDS: DetectionKinds = detectionKinds(ENVIRONMENT_KINDS);
