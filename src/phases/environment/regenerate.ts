import type { LlmPort, ChatMessage } from '../../core/llm-port.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Classification } from './classify.ts';
import {
  fenceData,
  renderPrompt,
  splitPrompt,
  type EnvironmentPromptName,
  type PromptFiles,
} from '../../core/prompts.ts';
import {
  RegenerationReply,
  type EnvironmentName,
  type VerificationCheck,
} from '../../core/environment.ts';

/** What went wrong, as the regeneration prompt shows it. */
export interface SetupFailure {
  stage: 'setup' | 'verification';
  command: string;
  exitCode: number | undefined;
  classification: Classification;
  /** The last part of the command's output. */
  outputTail: string;
  /** For a verification mismatch: what was expected and what came. */
  expected?: string;
  actual?: string;
}

export interface RegenerationRequest {
  environment: EnvironmentName;
  failure: SetupFailure;
  setupCommands: readonly string[];
  verification: readonly VerificationCheck[];
  detectedFiles: readonly string[];
  /** 1-based number of this regeneration, and the maximum. */
  attempt: number;
  maxAttempts: number;
}

export interface RegenerationDeps {
  llm: LlmPort;
  redactor?: Redactor;
  /** The prompt files (`prompts.directory` overriding the shipped ones). */
  prompts: PromptFiles<EnvironmentPromptName>;
  signal?: AbortSignal;
}

export const REGENERATE_PROMPT = 'environment-regenerate' satisfies EnvironmentPromptName;

export function describeFailure(failure: SetupFailure): string {
  const c = failure.classification;
  const lines = [
    `stage: ${failure.stage}`,
    `command: ${failure.command}`,
    `exit code: ${failure.exitCode ?? 'none'}`,
    `classification: ${c.class} (${c.kind}, ${c.tool})`,
  ];
  if (c.hint) lines.push(`hint: ${c.hint}`);
  if (failure.expected !== undefined)
    lines.push(`expected stdout: ${JSON.stringify(failure.expected)}`);
  if (failure.actual !== undefined) lines.push(`actual stdout: ${JSON.stringify(failure.actual)}`);
  return lines.join('\n');
}

/** The filled prompt for one regeneration, as chat messages (untrusted text fenced, secrets masked). */
export async function regenerationMessages(
  request: RegenerationRequest,
  deps: Omit<RegenerationDeps, 'llm'>,
): Promise<ChatMessage[]> {
  const redact = (text: string) => (deps.redactor ? deps.redactor.redact(text) : text);
  const { failure } = request;
  const error = [
    fenceData('the failed step', redact(describeFailure(failure))),
    fenceData('its output (last part)', redact(failure.outputTail) || '(no output)'),
  ].join('\n\n');
  const numbered = request.setupCommands.map((c, i) => `${i + 1}. ${c}`).join('\n') || '(none)';
  const text = renderPrompt(await deps.prompts.load(REGENERATE_PROMPT), {
    environment: request.environment,
    attempt: String(request.attempt),
    max_attempts: String(request.maxAttempts),
    error,
    setup_commands: fenceData('setup commands', redact(numbered)),
    verification: fenceData(
      'verification checks (JSON)',
      redact(JSON.stringify(request.verification, null, 2)),
    ),
    project_files: fenceData(
      'environment files',
      request.detectedFiles.length > 0
        ? request.detectedFiles.map((f) => `- ${f}`).join('\n')
        : '(none)',
    ),
  });
  const { system, user } = splitPrompt(text);
  return system
    ? [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ]
    : [{ role: 'user', content: user }];
}

/**
 * Asks the model for corrected `setup_commands` and `verification` through
 * the LLM port's validated JSON call (purpose `environment.regenerate`,
 * planning role). Errors of the port (service down,
 * reply never valid) propagate to the caller.
 */
export async function regenerateSetup(
  request: RegenerationRequest,
  deps: RegenerationDeps,
): Promise<RegenerationReply> {
  const messages = await regenerationMessages(request, deps);
  const reply = await deps.llm.json({
    purpose: 'environment.regenerate',
    role: 'planning',
    messages,
    schema: RegenerationReply,
    schemaName: 'environment_regeneration',
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return reply.value;
}
