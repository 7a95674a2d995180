/** Japanese texts of `en-errors.ts`: one entry per key (the type requires each). */
import type { Message } from './en.ts';
import type { enErrors } from './en-errors.ts';

export const jaErrors: Readonly<Record<keyof typeof enErrors, Message>> = {
  'hint.class.ConfigError':
    '示された値を直し、`mr-agent config check` で解決後の設定を確認してください。',
  'hint.class.UsageError': '使い方は `mr-agent --help` で確認できます。',
  'hint.class.ExternalServiceError':
    'サービスの URL、トークンとそのスコープを確認してください。429 と 5xx は自動で再試行しています。',
  'hint.class.ModelBehaviorError':
    'モデルが決められた返答形式に従いませんでした。この役割にはより強いモデルを試してください。',
  'hint.class.CommandFailedError':
    'ジョブログのコマンド出力を確認してください。環境に別のセットアップコマンドが必要かもしれません。',
  'hint.class.LimitReachedError':
    'タスクに本当に余裕が必要なら、`.mr-agent.yml` で上限を引き上げてください。',
  'hint.class.CancelledError':
    '実行はキャンセルされました。最終状態は進捗ノートに書き込まれています。',
  'hint.internal':
    'mr-agent の不具合です。ログを添えて報告してください（`MR_AGENT_LOG_LEVEL=debug` で実行）。',
  'hint.jobLog': '詳細はジョブログにあります。',

  'hint.llm.apiKey':
    '変数を設定するか（GitLab ではマスクした CI/CD 変数）、`llm.api_key_variable` で別の変数を指定してください。',
  'hint.llm.401': '`llm.api_key_variable` が指す変数の API キーを確認してください。',
  'hint.llm.403':
    'このキーではこのモデルまたはエンドポイントを使えません。`llm.model` とキーを確認してください。',
  'hint.llm.404': '`llm.base_url` と `llm.model` を確認してください。',
  'hint.llm.retry':
    'エンドポイントが失敗し続けました。時間をおいて再試行するか、`llm.profiles` に別の候補を追加してください。',
  'hint.model.reasks':
    'この役割により強いモデルを指定するか（`llm.roles.<role>.model`）、`llm.max_reasks` を引き上げてください。',
  'hint.gitlab.401': 'GitLab のトークンがないか、誤っているか、期限切れか、失効しています。',
  'hint.gitlab.scope':
    'GitLab のトークンにスコープが足りません。mr-agent には `api` が必要です（ノート、マージリクエスト、プッシュ）。',
  'hint.gitlab.403': 'トークンのユーザーに、この操作に必要なプロジェクトのロールがありません。',
  'hint.gitlab.429': 'GitLab がリクエストを制限しました。時間をおいて再試行してください。',
  'hint.gitlab.budget':
    'Runner から GitLab に到達でき、正常に動いているか確認してください。遅いインスタンスでは `gitlab.request_budget_sec`（`MR_AGENT_GITLAB_REQUEST_BUDGET_SEC`）を引き上げてください。',
  'hint.deliver.patchKept':
    '変更はジョブのアーティファクト（`.mr-agent/patch.diff`）に残っています。',
  'hint.deliver.secretWithheld':
    'コマンドまたはモデルが、ジョブのシークレットを変更に書き込みました（そのまま、分割、またはエンコードして）。プロンプトインジェクションが行うことです。名前を挙げたファイルを除く残りの変更は、ジョブのアーティファクトの `.mr-agent/patch.diff` にあります。',
  'hint.deliver.gitGuard':
    'エージェントが実行したコマンドが `.git`（設定やフック）に書き込みました。プロンプトインジェクションの典型的な動きです。手でプッシュする前にジョブのアーティファクトを確認してください。',
  'hint.confidentialIssue':
    'エージェントが書くもの（コメント、コミット、マージリクエスト、ジョブのアーティファクト）はすべて公開されるため、機密イシューは読みません。タスクとその結果を公開してよい場合は、タスクを公開イシューに書くか、`MR_AGENT_TASK` だけで実行してください。',

  'facts.errorLabel': 'エラー:',

  'envHint.goChecksum': 'モジュールのチェックサムが `go.sum` と一致しません',
  'envHint.npmOffline': 'npm がオフラインモードで、パッケージがキャッシュにありません',
  'envHint.npmCi': '`npm install` を使うか、ロックファイルを更新してください',
  'envHint.pnpmFrozen':
    '`pnpm install --no-frozen-lockfile` を使うか、`packageManager` の pnpm バージョンを使ってください',
  'envHint.versionMissing':
    'そのバージョンが存在しないか、レジストリのミラーが追いついていない可能性があります',
  'envHint.pythonPackage':
    '名前が誤っているか、パッケージがこの Python バージョンに対応していない可能性があります',
  'envHint.oomKiller': '多くの場合、メモリ不足によるプロセスの強制終了です',
  'envHint.mavenCached':
    'Maven が失敗したダウンロードをキャッシュしています。`-U` を付けて再実行し、更新を強制してください',
  'envHint.unreachableHost':
    'ランナーは依存パッケージの取得先 `{host}`（パッケージレジストリではありません）の名前を解決できません。ランナーからそのホストに届くようにするか、その依存パッケージをリポジトリに含めるかミラーしてください',

  'envStop.llmFailed': '再生成のリクエストが失敗しました: {error}',
  'envStop.fatal': '致命的なエラー（システム資源またはセキュリティ）は再試行しません',
  'envStop.retries': '{kind} の再試行を使い切りました',
  'envStop.regenerations': {
    one: 'LLM による再生成を {count} 回すべて使いました',
    other: 'LLM による再生成を {count} 回すべて使いました',
  },
  'envStop.stopped': 'セットアップを停止しました',
  'envStop.unreachableHost': 'ランナーが名前を解決できないホストへの取得は再試行しません',

  'notice.filesNotWritten': '実行ファイルの一部を書き込めませんでした: {error}',
  'notice.interrupted': {
    one: '以前の実行が完了前に中断されました: {runs}。',
    other: '以前の実行が完了前に中断されました: {runs}。',
  },
  'notice.interruptedJob': 'ジョブ {job}（開始 {time}）',
  'notice.interruptedRun': '実行 {run}（開始 {time}）',
  'notice.handedOver': '計画しました。作業は {environment} 環境（子パイプライン）で続きます。',

  'early.heading': 'mr-agent は実行を開始できませんでした',
  'early.whatToDo': '対処方法:',
  'early.fallback': 'ジョブログを確認して原因を直し、もう一度コマンドをコメントしてください。',
  'early.details': '詳細: {job} のログ、アーティファクト内の {file}。',
  'early.job': 'ジョブ {id}',

  'reply.thisMergeRequest': 'このマージリクエスト',
  'reply.thisIssue': 'このイシュー',
  'reply.pipeline': 'パイプライン #{id}',
  'reply.noRun': '{where}のエージェントの実行は見つかりません。',
  'reply.lastRun': '{where}の直近のエージェントの実行は {pipeline} です: {status}。',
  'reply.alreadyRunning': '{where}ではエージェントが実行中です: {pipeline}（{status}）。',
  'reply.notStarted':
    'このコマンドは開始していません。実行の終了を待つか、{stop} でキャンセルしてください。',
  'reply.joined':
    '{where}で実行中のエージェント（{pipeline}）に合流しました。次のステップでこのコメントを読み、ここで返信します。新しい実行は開始していません。',
  'reply.queued':
    '{where}で実行中のエージェント（{pipeline}）はすでに納品中のため、その続きとして次の実行を開始します: {next}。',
  'reply.busy':
    '開始していません: ブリッジには待機中のコマンドが {count} 件あり、今は受け付けられません。少し待ってからもう一度コメントしてください。',
  'reply.authorBusy':
    '開始していません: ブリッジにはあなたの待機中のコマンドがすでに {count} 件あるため、このコマンドは受け付けませんでした。それらに返信があってからもう一度コメントしてください。',
  'reply.targetBusy':
    '開始していません: {where}の別のコマンドが実行の開始を長く保持していました。少し待ってからもう一度コメントしてください。',
  'reply.refusedMore':
    '{where}でのあなたのコマンドのうち、ほかに {count} 件を同じ理由で受け付けませんでした（👀 を付け、個別の返信はしていません）。',
  'reply.stopped': 'エージェントの実行をキャンセルしました: {pipelines}。',
  'reply.nothingToStop': '{where}で実行中のエージェントはありません。停止するものはありません。',
  'reply.startFailed': 'エージェントのパイプラインを開始できませんでした。',
  'reply.gitlabAnswered': 'GitLab の応答: {reason}',
  'reply.startFailedHint':
    'トリガートークンが有効か、`workflow:rules` が `trigger` ソースのパイプラインを許可しているか確認してください。',
  'reply.privateRefusal':
    'mr-agent は何も開始していません。このコマンドは内部メモまたは機密イシューにあり、エージェントが{where}に書くもの（コメント、コミット、マージリクエスト）はすべて公開されるためです。\n\nタスクとその結果を公開してよい場合は、公開コメントで改めて依頼してください。',
  'reply.followRun': '進み具合は{note}で確認できます。',
  'reply.progressNote': '進捗ノート',
};
