/**
 * The gallery's model-written text in Japanese: what a model asked for
 * Japanese answers would write (plan steps, reasoning, summaries, questions).
 * It holds model text only, never a text mr-agent itself writes: the product
 * translates its own words, and a template left in English shows in the
 * Japanese gallery.
 */
export const JA_MODEL_TEXT: Readonly<Record<string, string>> = {
  'Add retry logic to the HTTP client': 'HTTP クライアントに再試行を追加する',
  'Read the HTTP client and its tests': 'HTTP クライアントとそのテストを読む',
  'Add retry with exponential backoff': '指数バックオフ付きの再試行を追加する',
  'Write tests for the retry logic': '再試行のテストを書く',
  'Create http/retry.py with the backoff helper': 'バックオフ用の補助関数を http/retry.py に作る',
  'Write tests and run them with python -m pytest': 'テストを書き、python -m pytest で実行する',
  'Use the helper in the client': 'クライアントで補助関数を使う',
  'tests/test_client.py: ImportError': 'tests/test_client.py で ImportError',
  'The retry helper must live in a separate module to avoid a circular import.':
    '循環インポートを避けるため、再試行の補助関数は別モジュールに置く必要があります。',
  'pytest is not installed; tests must run through `python -m pytest`.':
    'pytest がインストールされていないため、テストは `python -m pytest` で実行します。',
  'Consider jitter | and a max delay.': 'ジッター | と最大待ち時間も検討してください。',
  'Added `http/retry.py` with exponential backoff and used it in the client.\nAll 14 tests pass.':
    '指数バックオフ付きの `http/retry.py` を追加し、クライアントで使うようにしました。\n14 件のテストがすべて成功します。',
  'GET requests are retried on 429 and 5xx': 'GET リクエストは 429 と 5xx で再試行される',
  'The delay doubles after each attempt': '待ち時間は試行ごとに倍になる',
  'The whole test suite passes': 'テストスイート全体が成功する',
  'The model endpoint answered HTTP 503 three times.':
    'モデルのエンドポイントが HTTP 503 を 3 回返しました。',
  'Check the LLM endpoint (MR_AGENT_LLM_BASE_URL) and its status page.':
    'LLM エンドポイント（`MR_AGENT_LLM_BASE_URL`）と、そのステータスページを確認してください。',
  'The retry loop never gives up: bound it, as the request asks.':
    '再試行のループが終わりません。依頼どおり回数に上限を設けてください。',
  'Name the timeout.': 'タイムアウトに名前を付けてください。',
  'The retry bound needs a decision on the timeout first.':
    '再試行の上限には、先にタイムアウトを決める必要があります。',
  'GitLab refused the position (400)': 'GitLab がこの位置を拒否しました（400）',
  'pytest still cannot import the client': 'pytest がまだクライアントをインポートできない',
  'Should retries apply to POST requests?': 'POST リクエストも再試行の対象にしますか？',
  'What is the largest acceptable delay?': '許容できる最大の待ち時間はどれくらいですか？',
  'Retrying non-idempotent requests can create duplicates.':
    '冪等でないリクエストを再試行すると、重複が生じる可能性があるためです。',
  'only GET, HEAD and PUT are retried.': 'GET、HEAD、PUT のみ再試行します。',
  'the delay is capped at 30 seconds.': '待ち時間の上限を 30 秒にします。',
  'The client compiles, but tests/test_client.py still cannot import it.':
    'クライアントはビルドできますが、tests/test_client.py からまだインポートできません。',
  'the circular import between http/client.py and http/session.py':
    'http/client.py と http/session.py の間の循環インポート',
  'Run the tests with `python -m pytest` from the repository root':
    'リポジトリのルートから `python -m pytest` でテストを実行する',
  'The import of `retry` creates a cycle between client.py and session.py.':
    '`retry` のインポートにより client.py と session.py の間に循環が生じています。',
  'ImportError in tests/test_client.py': 'tests/test_client.py で ImportError が発生',
  'retry helper placed in the wrong module': '再試行の補助関数の置き場所が誤っている',
  'Move the helper to http/retry.py': '補助関数を http/retry.py に移す',
  'Re-run the tests': 'テストを再実行する',
  'The connection was reset; try again.': '接続がリセットされました。もう一度試します。',
  'Added `http/retry.py` with exponential backoff.':
    '指数バックオフ付きの `http/retry.py` を追加しました。',
  'task_2: Add retry with exponential backoff': 'task_2: 指数バックオフ付きの再試行を追加する',
};

/** `value` with every string found in `dictionary` replaced (deeply; other values kept). */
export function translated<T>(value: T, dictionary: Readonly<Record<string, string>>): T {
  if (typeof value === 'string') return (dictionary[value] ?? value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => translated(v, dictionary)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, translated(v, dictionary)]),
    ) as T;
  return value;
}
