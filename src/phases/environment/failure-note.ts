/**
 * The "environment setup failed" note; it is rendered by
 * the report layer (src/report/notes/environment-failure-note.ts).
 */
import {
  renderEnvironmentFailureNote,
  type EnvironmentFailureInput,
} from '../../report/notes/environment-failure-note.ts';
import type { Classification } from './classify.ts';
import type { RetryCounts } from './run-command.ts';
import type { EnvironmentName } from '../../core/environment.ts';

export interface FailureNoteInput extends EnvironmentFailureInput {
  environment: EnvironmentName;
  classification: Classification;
  retries: RetryCounts;
}

export function renderFailureNote(input: FailureNoteInput): string {
  return renderEnvironmentFailureNote(input);
}
