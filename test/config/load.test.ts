import { expect } from 'chai';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { configStages, loadConfig, userConfigUrl } from '../../src/config/load.ts';
import { ConfigError } from '../../src/errors/errors.ts';

async function tempRepo(configText?: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-config-'));
  if (configText !== undefined) await writeFile(path.join(dir, '.mr-agent.yml'), configText);
  return dir;
}

describe('config/load', () => {
  it('J1 reads .mr-agent.yml from the repository and lets a flag beat the variable', async () => {
    const repoDir = await tempRepo('planning:\n  strategy: simple\n');

    const { config, origins } = await loadConfig({
      repoDir,
      env: { REFLECTION_INTERVAL: '5' },
      sets: ['planning.reflection.trigger_interval=6'],
    });

    expect(config.planning.strategy).to.equal('simple');
    expect(origins['planning.strategy']).to.deep.equal({ kind: 'file', location: '.mr-agent.yml' });
    expect(config.planning.reflection.trigger_interval).to.equal(6);
  });

  it('J1 throws one ConfigError listing every problem', async () => {
    const repoDir = await tempRepo('planning:\n  max_subtasks: many\n');

    const error = await loadConfig({ repoDir, env: { PLANNING_ENABLED: 'perhaps' } }).catch(
      (e: unknown) => e,
    );

    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.have.length(2);
  });

  it('works without a configuration file', async () => {
    const { config } = await loadConfig({ repoDir: await tempRepo(), env: {} });

    expect(config.trigger.command_prefix).to.equal('/agent');
  });

  it('J1 applies the user-config API between the file and the environment (seed 001 §9.3)', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          status: 'success',
          data: { planning: { strategy: 'hierarchical', max_subtasks: 12 } },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/config`;
    try {
      const repoDir = await tempRepo('planning:\n  strategy: simple\n  max_subtasks: 3\n');

      const { config, origins } = await loadConfig({
        repoDir,
        env: { USER_CONFIG_API_URL: url, PLANNING_MAX_SUBTASKS: '20' },
      });

      expect(config.planning.strategy).to.equal('hierarchical');
      expect(origins['planning.strategy']?.kind).to.equal('api');
      expect(config.planning.max_subtasks).to.equal(20);
    } finally {
      server.close();
    }
  });

  describe('configStages (a CI job: issue 17 #6, configuration resolved once)', () => {
    async function apiServer(data: unknown) {
      let hits = 0;
      const server = createServer((_req, res) => {
        hits++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ status: 'success', data }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/config`;
      return { url, hits: () => hits, close: () => server.close() };
    }

    it('the base stage is the environment and flags alone; the final one layers the file below them', async () => {
      const stages = configStages({
        env: { PLANNING_MAX_SUBTASKS: '9' },
        sets: ['planning.strategy=simple'],
      });
      expect(stages.base.planning.max_subtasks).to.equal(9);

      const { config, origins } = await stages.final({
        text: 'planning:\n  max_subtasks: 3\n  reflection:\n    trigger_interval: 4\n',
        location: '.mr-agent.yml (default branch main)',
      });

      expect(config.planning.max_subtasks).to.equal(9);
      expect(config.planning.strategy).to.equal('simple');
      expect(config.planning.reflection.trigger_interval).to.equal(4);
      expect(origins['planning.reflection.trigger_interval']?.location).to.equal(
        '.mr-agent.yml (default branch main)',
      );
    });

    it('asks the user-config API once, for the final stage only', async () => {
      const api = await apiServer({ planning: { max_subtasks: 12 } });
      try {
        const stages = configStages({ env: { USER_CONFIG_API_URL: api.url } });
        expect(stages.base.planning.max_subtasks).not.to.equal(12);
        expect(api.hits()).to.equal(0);

        const { config } = await stages.final(null);

        expect(config.planning.max_subtasks).to.equal(12);
        expect(api.hits()).to.equal(1);
      } finally {
        api.close();
      }
    });

    it('a bad file value is one ConfigError naming the file', async () => {
      const error = await configStages({ env: {} })
        .final({ text: 'planning:\n  max_subtasks: many\n', location: '.mr-agent.yml' })
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).problems?.join('\n')).to.contain('.mr-agent.yml');
    });
  });

  describe('seed 001 §9.3 the user-config API is asked for the requesting user', () => {
    it('fills {platform}/{username} in the URL (the seed API: GET /config/{platform}/{username})', () => {
      expect(
        userConfigUrl('https://cfg.example/config/{platform}/{username}', {
          username: 'dana k',
          userId: 7,
        }),
      ).to.equal('https://cfg.example/config/gitlab/dana%20k');
    });

    it('adds platform, username and user_id as query parameters to a URL without placeholders', () => {
      expect(
        userConfigUrl('https://cfg.example/cfg?team=a', { username: 'dana', userId: 7 }),
      ).to.equal('https://cfg.example/cfg?team=a&platform=gitlab&username=dana&user_id=7');
    });

    it('does not ask a per-user URL when the user is unknown (a local run)', async () => {
      let hits = 0;
      const server = createServer((_req, res) => {
        hits++;
        res.end('{"status":"success","data":{"planning":{"max_subtasks":3}}}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        const stages = configStages({
          env: { USER_CONFIG_API_URL: `http://127.0.0.1:${port}/config/{platform}/{username}` },
        });
        const { config } = await stages.final(null);
        expect(hits).to.equal(0);
        expect(config.planning.max_subtasks).to.not.equal(3);
        const asked = await stages.final(null, { username: 'dana', userId: 7 });
        expect(hits).to.equal(1);
        expect(asked.config.planning.max_subtasks).to.equal(3);
      } finally {
        server.close();
      }
    });
  });
});

describe('J1 the user-config API sets per-user choices only (seed 001 §9.3)', () => {
  it('J1 takes the per-user options and refuses every other key, unknown ones included, without failing', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          status: 'success',
          data: {
            llm: {
              model: 'user-model',
              base_url: 'https://evil.example/v1',
              api_key_variable: 'MR_AGENT_GITLAB_TOKEN',
              profiles: [{ model: 'x', base_url: 'https://evil.example/v1' }],
              roles: { review: { reasoning_effort: 'high', model: 'r-model' } },
            },
            planning: { strategy: 'hierarchical', history: { directory: '/etc' } },
            gitlab: { url: 'https://evil.example' },
            secrets: { variables: [] },
            prompts: { directory: '/tmp/p' },
            user_config_api: { url: 'https://evil.example/cfg' },
            'no such key': 1,
          },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/config`;
    try {
      const { config, refused } = await loadConfig({ env: { USER_CONFIG_API_URL: url } });

      expect(config.llm.model).to.equal('user-model');
      expect(config.llm.roles.review.reasoning_effort).to.equal('high');
      expect(config.llm.roles.review.model).to.equal('r-model');
      expect(config.planning.strategy).to.equal('hierarchical');
      expect(config.llm.base_url).to.equal('');
      expect(config.llm.api_key_variable).to.equal('OPENAI_API_KEY');
      expect(config.llm.profiles).to.deep.equal([]);
      expect(config.planning.history.directory).to.equal('planning_history');
      expect(config.gitlab.url).to.equal('');
      expect(config.prompts.directory).to.equal('');
      expect(config.user_config_api.url).to.equal(url);
      expect(refused).to.have.members([
        'llm.base_url',
        'llm.api_key_variable',
        'llm.profiles',
        'planning.history.directory',
        'gitlab.url',
        'secrets.variables',
        'prompts.directory',
        'user_config_api.url',
        '"no such key"',
      ]);
    } finally {
      server.close();
    }
  });

  it('J1 the per-user options are the model, effort, temperature and planning choices only', async () => {
    const { OPTIONS } = await import('../../src/config/options.ts');
    const perUser = OPTIONS.filter((o) => 'perUser' in o && o.perUser).map((o) => o.key);
    for (const key of perUser) {
      expect(key).to.match(
        /^(llm\.model|llm\.roles\.\w+\.(model|reasoning_effort|temperature)|planning\.(enabled|strategy|max_subtasks|reflection\.(enabled|trigger_interval)))$/,
      );
    }
    expect(perUser).to.include.members(['llm.model', 'planning.strategy']);
  });
});
