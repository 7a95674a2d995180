import * as z from 'zod';

/** The reader's answer for one path, as it travels from the reader process (content in base64). */
export const wireEntry = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('missing') }),
  z.strictObject({ kind: z.literal('folder') }),
  z.strictObject({ kind: z.literal('link'), data: z.base64() }),
  z.strictObject({
    kind: z.literal('file'),
    executable: z.boolean(),
    size: z.number().int().nonnegative(),
    data: z.base64(),
  }),
  z.strictObject({ kind: z.literal('skip'), why: z.string().max(200) }),
]);
export type WireEntry = z.infer<typeof wireEntry>;

/** The lister's answer, as it travels from the lister process. */
export const wireListing = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('listed'),
    entries: z.array(
      z.strictObject({
        rel: z.string(),
        kind: z.enum(['file', 'dir', 'link', 'other']),
        size: z.number().int().nonnegative(),
      }),
    ),
    truncated: z.boolean(),
  }),
  z.strictObject({ kind: z.literal('missing') }),
  z.strictObject({ kind: z.literal('not-folder') }),
  z.strictObject({ kind: z.literal('refused'), why: z.string().max(200) }),
]);
