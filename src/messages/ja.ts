/**
 * Japanese texts the notes share: one entry per key of `en.ts` (the type
 * requires each); a note kind's own texts are in its file. The wording follows the seeds' own Japanese terms
 * (計画前情報収集, 環境構築, 監視と修正, 受け入れ条件 …).
 */
import type { Message, MessageKey } from './en.ts';
import { jaErrors } from './ja-errors.ts';

export const ja: Readonly<Record<MessageKey, Message>> = {
  ...jaErrors,
  'state.running': '作業中',
  'state.complete': '完了',
  'state.failed': '失敗',
  'state.cancelled': 'キャンセル',
  'state.interrupted': '中断',
  'state.awaiting_answer': '回答待ち',
  'state.needs_human': '対応が必要です',
  'state.paused': '一時停止中',
  'state.budget_exhausted': '予算の上限に達しました',
  'state.never_run': 'まだ実行されていません',

  'phase.pre_planning': '計画前情報収集',
  'phase.planning': '計画',
  'phase.environment_setup': '環境構築',
  'phase.execution': '実行',
  'phase.reflection': 'リフレクション',
  'phase.verification': '検証',
  'phase.complete': '完了',
  'checkpoint.goal_understanding': '目標の理解',
  'checkpoint.task_decomposition': 'タスクの分解',
  'checkpoint.action_sequence': '行動系列の生成',
  'checkpoint.execution': '実行',
  'checkpoint.reflection': '監視と修正',
  'checkpoint.final_evaluation': '最終評価',

  'facts.now': '現在: {phase}',
  'facts.steps': '{total} ステップ中 {done} 完了',
  'facts.started': '開始 {time}',
  'facts.viewJob': 'ジョブ #{id} を見る',
  'facts.pushed': '{commit} を {branch} にプッシュしました',
  'facts.pushedElsewhere':
    '{commit} を {branch} にプッシュしました（{intended} ではありません: {reason}）',
  'facts.mergeRequest': 'ドラフトのマージリクエスト',
  'facts.nothingPushedYet': 'まだ何もプッシュしていません',
  'facts.nothingPushed': '何もプッシュしていません',
  'facts.noChanges': 'プッシュなし: 変更されたファイルはありません',
  'facts.pushDisabled': 'プッシュなし: `delivery.push` がオフです',
  'facts.notPushed': 'プッシュなし: {reason}',
  'facts.patchPosted': '未プッシュ: 変更は{patch}にあります',
  'facts.patchNote': 'パッチノート',
  'facts.files': { one: '{count} ファイルを変更', other: '{count} ファイルを変更' },
  'facts.timedOut': 'タイムアウト',
  'facts.questions': {
    one: '続行する前に{link}への回答が必要です',
    other: '続行する前に{link}への回答が必要です',
  },
  'facts.questionsLink': { one: '質問 {count} 件', other: '質問 {count} 件' },
  'facts.stoppedDuring': '{phase}の途中で停止しました: {who}',
  'facts.stopped': '停止しました: {who}',
  'facts.pausedDuring': '{command} の依頼により{phase}の途中で一時停止しました',
  'facts.paused': '{command} の依頼により一時停止しました',
  'facts.budgetStopped': '次のモデル呼び出しで {limit} を超えるため、その前に停止しました',
  'budget.spend': '{limit} 中 {spent}',
  'budget.spendTokens': '{limit} トークン中 {spent} トークン',
  'budget.spendMr': 'このマージリクエスト・イシュー全体で {limit} 中 {spent}',
  'budget.keptFailing': '予算の上限で実行が止まり、チェックが通りませんでした',
  'budget.keptUnchecked': '予算の上限で実行が止まり、変更を確かめるチェックがありませんでした',
  'resume.resumed':
    '{run} のチェックポイントから続けました。完了済みの {done} 件のアクションは再実行せず、変更を再適用して作業ツリーにあることを確認しました。',
  'resume.none': '以前の実行のチェックポイントが見つかりませんでした。新しく計画を立てます。',
  'resume.corrupt': 'チェックポイントを読み取れませんでした（{problem}）。新しく計画を立てます。',
  'resume.stale':
    '{run} のチェックポイントはブランチの新しいコミットより古いため適用しませんでした。新しく計画を立てます。',
  'resume.notApplied':
    '{run} のチェックポイントの変更はブランチに適用できなくなっていたため適用しませんでした。新しく計画を立てます。',
  'facts.interrupted': '最終状態を書き込む前にジョブが終了しました',
  'facts.humanReason': {
    one: '計画を {count} 回修正しても収束しません（修正回数の上限です）',
    other: '計画を {count} 回修正しても収束しません（修正回数の上限です）',
  },
  'facts.humanReasonNone': '収束せず、計画の修正はオフになっています',
  'cancel.signal':
    'ジョブが {signal} を受け取りました（`/agent stop`、GitLab でのキャンセル、またはジョブのタイムアウト）',
  'cancel.unknown': '実行がキャンセルされました',

  'next.label': '次にすること:',
  'next.running':
    'いまは対応不要です。このノートは実行の進行に合わせて更新されます。中止するには {stop} とコメントしてください。',
  'next.reviewCommit': '{commit}を確認してください。',
  'next.theCommit': 'コミット',
  'next.reviewMergeRequest': '{mr}を確認してください。',
  'next.followUp': '追加の変更は {command} で依頼できます。',
  'next.applyPatch': '{patch}の変更を `git apply` で適用し、ご自身でプッシュしてください。',
  'next.noChanges':
    '確認するものはありません。変更を期待していた場合は、何を変えるかを具体的にして {command} とコメントしてください。',
  'next.pushDisabled':
    '`delivery.push` がオフのためプッシュしていません。オンにするか、手作業で変更してください。',
  'next.local': '作業ツリーの変更を確認してください（`git diff`）。',
  'next.reviewThreads':
    '変更行のレビュースレッドを確認してください。プッシュ後に {review} とコメントすると再レビューします。',
  'next.retry': 'そのうえで{retry}するか、もう一度 {command} とコメントしてください。',
  'next.retryJob': 'ジョブ #{id} を再試行',
  'next.cancelled':
    'この実行の結果は残っていません。やり直すには {retry}（同じタスクを履歴付きで）または {command} とコメントしてください。',
  'next.interrupted': 'タスクをもう一度実行するには {retry} とコメントしてください。',
  'next.paused':
    '{resume} とコメントすると再開します。次の実行がこの計画を改訂履歴と振り返りごと引き継ぎます。',
  'next.budget':
    '{resume} とコメントするとチェックポイントから続けます（`+$X` でその実行の `budget.max_usd` を X 増やします）。先に {limit}（変数 {variable}）を引き上げることもできます。次の実行はこの計画を引き継ぎ、完了済みのアクションを飛ばし、その変更を保ちます。',
  'next.needsHuman':
    '{note}を読んだうえで、より具体的な指示を添えて {command} とコメントするか、手作業で変更を仕上げてください。',
  'next.humanNote': '試したこと',
  'next.openQuestion': '質問を開く',

  'rule.reply':
    '**回答は ❓ 質問のスレッドへ**: そこに返信してください（`/agent` は不要）。回答を受けて実行を続けます。',

  'blame.user': 'リクエストまたはプロジェクトの mr-agent 設定の修正が必要です。',
  'blame.service':
    'コードの問題ではありません。エージェントが使うサービス（GitLab またはモデルのエンドポイント）で障害が起きました。メンテナーに確認を依頼してください。',
  'blame.model':
    'モデルが使える回答を返しませんでした。再試行するか、より高性能なモデルにすると解決する場合があります。',
  'blame.command': 'コマンドが失敗し、実行を先に進められませんでした。',
  'blame.limit': '設定された上限に達しました。',
  'blame.internal': 'mr-agent の不具合と思われます。ジョブのログを添えて報告してください。',
  'blame.hint': 'ヒント: {hint}',

  'result.none': 'まとめはありません。',
  'plan.revised': {
    one: '🔁 計画を {count} 回修正しました。直近の理由: {reason}',
    other: '🔁 計画を {count} 回修正しました。直近の理由: {reason}',
  },
  'plan.reasonMissing': '理由の記載なし',
  'item.inProgress': '実行中',
  'item.failed': '失敗',
  'item.stopped': 'ここで停止',
  'item.skipped': 'スキップ',
  'criteria.heading': '受け入れ条件',
  'criteria.met': '{total} 件中 {met} 件を達成',
  'review.suggestion': 'レビュアーの提案:',
  'notice.commandsRefused':
    'リポジトリのコマンド（セットアップ、テスト、run_command）は実行していません: {reason}。コマンドがジョブのシークレットを読めてしまうためです。ランナーイメージで mr-agent を root として動かす（コマンドは権限のないユーザーで実行されます）か、`security.isolation: accept-risk` を設定するとそのまま実行します。',
  'notice.forkPatch':
    'このマージリクエストはフォークからのものです。プロジェクトの CI/CD シークレットに触れないよう、フォークのコードは実行していません（セットアップ、インストールスクリプト、テスト、コマンドのいずれも実行なし）。変更はパッチとしてお渡しします。メンテナーは `trigger.forks: run` で実行を許可できます（docs/security.md を参照）。',
  'notice.userSettingsRefused':
    'ユーザー設定 API の応答のうち {keys} は適用していません。この API で設定できるのは、依頼したユーザー自身のモデル、推論の強さ、temperature、プランニングの選択だけです（docs/security.md を参照）。',
  'notice.forkProtectedRef':
    'このマージリクエストはフォークからのもので `trigger.forks` は `run` ですが、このパイプラインは保護された ref {ref} で動いているため、フォークのコードは実行していません。マージリクエスト自身の ref で実行する Webhook ブリッジから開始してください。',
  'notice.gitlabTokenScopes':
    'この GitLab（{found}）はトークンのスコープを返しません（GitLab {minimum} 以降で対応）。そのため実行前にトークンの `api` スコープを確認していません。スコープが足りないトークンは最初の書き込みで失敗します。',
  'notice.gitlabTriggerInputs':
    'この GitLab（{found}）はトリガー API でパイプライン入力を受け付けません（GitLab {minimum} 以降で対応）。そのため Webhook ブリッジはリクエストをパイプライン変数として渡します。「パイプライン変数を使用できる最小ロール」でトリガートークン所有者に許可してください。',

  'details.summary': '実行の詳細',
  'details.phases': { one: '{count} フェーズ', other: '{count} フェーズ' },
  'details.environment': '{name} 環境',
  'details.calls': { one: 'モデル呼び出し {count} 回', other: 'モデル呼び出し {count} 回' },
  'details.tokens': { one: '{count} トークン', other: '{count} トークン' },
  'details.skipped': '{phases}はスキップ',
  'details.repeated': '×{count}',
  'env.setupCommands': {
    one: 'セットアップコマンド {count} 件',
    other: 'セットアップコマンド {count} 件',
  },
  'env.checks': '確認 {passed}/{total}',
  'env.setupFailed': 'セットアップ失敗、警告付きで続行',
  'env.setupSkipped': 'セットアップなし',
  'punct.comma': '、',
  'punct.aside': '（{text}）',
  'review.column.review': 'レビュー',
  'review.column.verdict': '判定',
  'review.column.feedback': 'フィードバック',
  'review.subject.planning': '計画',
  'review.subject.execution': '変更',
  'review.verdict.PASS': '合格',
  'review.verdict.PASS_WITH_SUGGESTIONS': '提案付きで合格',
  'review.verdict.FAIL': '要修正',
  'review.attempt': '{max} 回中 {attempt} 回目のレビュー',
  'usage.column.group': 'モデル呼び出し',
  'usage.column.calls': '回数',
  'usage.column.tokens': 'トークン',
  'usage.group.execution': '実行',
  'usage.group.planning': '計画・再計画',
  'usage.group.reviews': 'レビュー・確認',
  'usage.group.other': 'その他',
  'usage.total': '合計',
  'usage.cost': '推定コスト: {cost}',
  'history.heading': '以前の計画',
  'history.original': '最初の計画（{time}）',
  'history.revision': '修正 {number}（{time}）',
  'history.replacedBecause': '置き換えた理由: {reason}',
  'links.taskNote': 'タスクノート',
  'links.startedAt': '開始 {time}',
  'diagram.revise': '修正',
  'footer.live': 'mr-agent · このノートは随時更新されます',
  'footer.final': 'mr-agent · 最終版',
  'footer.job': 'ジョブ {job}',
  'footer.local': 'ローカル実行',

  'replan.kind.retry': 'ステップを再試行',
  'replan.kind.partial_replan': '残りのステップを再計画',
  'replan.kind.action_regeneration': 'アクションを作り直し',
  'replan.kind.task_redecomposition': 'タスクを分解し直し',
  'replan.kind.goal_revision': '目標を見直し',
  'replan.kind.full_replan': '最初から計画し直し',
  'replan.kind.clarification_request': 'リクエストの関係者に確認',
  'replanLog.heading': '再計画',
  'replanLog.started': '{time} · {point}で開始: {kind}',
  'replanLog.startedAt': '{time} · {point}で開始',
  'replanLog.completed': '{time} · 完了（{duration}）: 修正した計画で実行を続けました',
  'replanLog.failed':
    '{time} · 失敗（{duration}後）: 修正した計画が次の段階に進む前に実行が終了しました',

  'help.heading': 'mr-agent のコマンド',
  'help.where': 'コマンドはコメントの行頭に書いてください（コードや引用の中は無効です）。',
  'help.run': '書いた内容の変更を行い、ここにプッシュします',
  'help.plan': '計画だけを投稿し、何も変更しません',
  'help.approve': '{plan} で投稿した計画をそのまま実行します',
  'help.retry': '直前のタスクを履歴付きでもう一度実行します',
  'help.status': '直近の実行の状態を表示します',
  'help.stop': '実行中のエージェントのパイプラインをキャンセルします',
  'help.pause': '実行中のエージェントを現在のステップの後で一時停止します',
  'help.resume': '一時停止した実行を再開します',
  'help.continue':
    '予算の上限で止まった実行をチェックポイントから続けます。`+$X` でその実行の `budget.max_usd` を X 増やします',
  'pause.asked':
    '現在のステップが終わったら一時停止します（{note}）。再開するには {resume} とコメントしてください。',
  'pause.noNote':
    'まだ進捗ノートが投稿されていないため、一時停止を依頼できません。少し待ってからもう一度試すか、{stop} でキャンセルしてください。',
  'pause.nothing': '実行中のエージェントはありません。一時停止するものはありません。',
  'pause.progressNote': '進捗ノート',
  'help.help': 'この一覧を表示します',
  'help.review':
    'このマージリクエストをレビューし、指摘を変更行のスレッドに（提案付きで）投稿します',
  'help.address-reviews':
    'このマージリクエストの未解決のレビュースレッドに 1 つのコミットで対応し、各スレッドで返信します（対応したものは解決済みに）',
  'help.instruction': '<指示>',
  'conversation.noted': '承知しました — {what}',
  'conversation.notedGeneric': '承知しました — この実行の残りの作業で考慮します。',
  'conversation.stopBeforeDelivery': 'プッシュする前に停止し、変更はパッチとして残します。',
  'conversation.runEnded':
    'このコメントを読む前に実行が終了しました。続きの実行を開始するには、もう一度コメントしてください。',
  'conversation.stopReason': '@{user} さんがプッシュ前に停止するよう依頼しました',
  'replanLog.notCarriedOut': '{time} · {point}での「{kind}」は実行しませんでした: {why}。{then}',
  'replanLog.notCarriedOutAt': '{time} · {point}での再計画は実行しませんでした: {why}。{then}',
  'replanWhy.phase_limit': '上限に達しました（{limit} 回中 {used} 回、{option}）',
  'replanWhy.total_limit': '再計画全体の上限に達しました（{limit} 回中 {used} 回、{option}）',
  'replanWhy.loop': '同じ再計画をすでに {used} 回実行しました（{option}）',
  'replanWhy.other': '上限により止めました',
  'replanThen.continue': '現在の計画のまま続けました',
  'replanThen.stop': '実行を止めて指示を待っています',
  'replanThen.alternative': '代わりに「{replan}」を選びました',
  'item.failedTimes': { one: '{count} 回失敗', other: '{count} 回失敗' },
  'item.doneAfter': { one: '{count} 回失敗した後に完了', other: '{count} 回失敗した後に完了' },
  'item.retrying': { one: '{count} 回失敗、再試行します', other: '{count} 回失敗、再試行します' },
  'item.runningAfter': {
    one: '実行中（{count} 回失敗した後）',
    other: '実行中（{count} 回失敗した後）',
  },
  'history.older': {
    one: 'それ以前の計画 {count} 件は省略',
    other: 'それ以前の計画 {count} 件は省略',
  },
  'plan.reason.review': '実行レビューで修正を求められました',
  'service.llm': 'モデルのエンドポイント',
  'service.gitlab': 'GitLab',
  'blame.keyRefused': '{service}がキーを拒否しました（HTTP {status}）。{check}。',
  'blame.tokenRefused': '{service}がトークンを拒否しました（HTTP {status}）。{check}。',
  'blame.checkVariable': '{variable} のキーを確認してください',
  'blame.checkLlmKey': 'モデルのキー（`llm.api_key_variable`）を確認してください',
  'blame.checkGitlabToken': 'GitLab のトークンを確認してください',
  'blame.rateLimited': '{service}がリクエスト数を制限しました（HTTP 429）。{wait}。',
  'blame.waitFor': '{wait}待ってから再試行してください',
  'blame.waitAWhile': '数分待ってから再試行してください',
  'confirm.question':
    '「{replan}」をすべきか確信がありません（確信度 {confidence}）。実行しますか？実行するなら「はい」と返信してください。それ以外の返信では現在の計画を続けます。',
  'confirm.keep': '現在の計画を続けます',
  'facts.failedSteps': {
    one: '{count} ステップが失敗しましたが、最終確認で依頼は完了と判断しました',
    other: '{count} ステップが失敗しましたが、最終確認で依頼は完了と判断しました',
  },
};
