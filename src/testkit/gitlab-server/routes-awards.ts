/**
 * Award emoji on a merge request or issue itself (GitLab's emoji reactions API:
 * `GET|POST /projects/:id/{merge_requests,issues}/:iid/award_emoji`,
 * `DELETE …/award_emoji/:award_id`). One award of a name per user and
 * awardable; only the award's own user may delete it.
 */
import { noteableOf, projectOf, requireCanComment } from './access.ts';
import {
  HttpError,
  json,
  notFound,
  paginate,
  route,
  stringParam,
  type Ctx,
  type Route,
} from './http.ts';
import type { Renderer } from './render.ts';
import type { TargetAwardRec } from './records.ts';

const BASE = '/projects/:id/:noteables/:iid/award_emoji';

function here(ctx: Ctx) {
  const project = projectOf(ctx);
  const { rec, kind } = noteableOf(ctx, project);
  const all = ctx.model.targetAwards;
  const mine = all.filter((a) => a.awardableType === kind && a.awardableId === rec.id);
  return { project, rec, kind, all, mine };
}

function render(render: Renderer, a: TargetAwardRec) {
  return {
    ...render.award({ ...a, noteId: a.awardableId }, a.awardableType),
    awardable_type: a.awardableType,
  };
}

export function targetAwardRoutes(renderer: Renderer): Route[] {
  return [
    route('GET', BASE, (ctx) =>
      paginate(
        ctx,
        here(ctx).mine.map((a) => render(renderer, a)),
      ),
    ),
    route('POST', BASE, (ctx) => {
      const { project, rec, kind, all, mine } = here(ctx);
      if (ctx.token?.kind === 'job') throw notFound('Award Emoji');
      requireCanComment(ctx, project);
      const name = stringParam(ctx, 'name', true)!;
      const userId = ctx.user!.id;
      if (mine.some((a) => a.userId === userId && a.name === name))
        throw notFound('Award Emoji Name has already been taken');
      const award: TargetAwardRec = {
        id: ctx.model.nextId(),
        awardableType: kind as 'MergeRequest' | 'Issue',
        awardableId: rec.id,
        userId,
        name,
        createdAt: ctx.model.now(),
      };
      all.push(award);
      return json(201, render(renderer, award));
    }),
    route('DELETE', `${BASE}/:award_id`, (ctx) => {
      const { all, mine } = here(ctx);
      const award = mine.find((a) => a.id === Number(ctx.params.award_id));
      if (!award) throw notFound('Award Emoji');
      if (award.userId !== ctx.user?.id) throw new HttpError(401, { message: '401 Unauthorized' });
      all.splice(all.indexOf(award), 1);
      return { status: 204 };
    }),
  ];
}
