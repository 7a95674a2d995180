/** The library API of mr-agent. */
export { VERSION } from './version.ts';
export { loadConfig } from './config/load.ts';
export { resolveConfig } from './config/resolve.ts';
export { OPTIONS, type Config } from './config/options.ts';
export { parseTaskYaml, taskFromText, type TaskSpec } from './task/task-yaml.ts';
export { Redactor } from './log/redact.ts';
export {
  AgentError,
  ConfigError,
  UsageError,
  ExternalServiceError,
  ModelBehaviorError,
  CommandFailedError,
  LimitReachedError,
  CancelledError,
} from './errors/errors.ts';
export {
  parseAgentCommand,
  SUB_COMMANDS,
  type ParsedCommand,
  type SubCommand,
} from './commands/parse.ts';
export {
  interpretTriggerPayload,
  type TriggerPayloadDecision,
} from './commands/trigger-payload.ts';
export {
  detectEnvironment,
  selectEnvironment,
  setupEnvironment,
  classifyFailure,
  renderEnvironmentSection,
  SelectedEnvironment,
  type EnvironmentDetection,
  type EnvironmentHandoff,
  type EnvironmentSelection,
  type EnvironmentSetupResult,
} from './phases/environment/index.ts';
export { promptFiles, promptLibrary } from './llm/prompt-files.ts';
export type { EnvironmentPromptName, PromptFiles, PromptLibrary } from './core/prompts.ts';
export { extractJson, findJsonValue, type JsonExtraction } from './llm/extract-json.ts';
export {
  parseReviewVerdict,
  ReviewVerdictReply,
  type ParsedReviewVerdict,
  type Verdict,
} from './llm/review-verdict.ts';
export { OpenAiLlm, createOpenAiLlm, type OpenAiLlmOptions } from './llm/openai-llm.ts';
export { UsageLedger, type UsageRow, type UsageTotal } from './llm/usage-ledger.ts';
export type { LlmPort, LlmPurpose, ChatMessage, ChatReply, JsonReply } from './core/llm-port.ts';
export { runTask, type RunInput } from './run/orchestrator.ts';
export type { RunDeps } from './core/run-context.ts';
export type { RunOutcome, OutcomeReason } from './core/outcome.ts';
export type { ReplanHook, ReviewHook, ReplanDirective, ReviewVerdict } from './core/hooks.ts';
export { startReporting, type ReportingOptions } from './run/reporting/index.ts';
export { environmentStep } from './phases/environment/step.ts';
export { builtinTools } from './tools/index.ts';
export { Plan, planReplySchema } from './core/plan.ts';
export {
  createReplanHook,
  ReplanManager,
  gitlabAnswers,
  type ReplanWiring,
  type AnswerSource,
} from './phases/replan/index.ts';
export { pausedQuestionFor, type PausedQuestion } from './phases/replan/resume.ts';
export { decisionSchemaFor, type ReplanDecision } from './phases/replan/schema.ts';
