/**
 * The conversation port: what people say on the merge request or issue while
 * a run works on it. The run asks at each checkpoint (after an action, at a
 * reflection, before delivery) for the comments that are new since it last
 * asked, and answers each in its own thread. The CI job reads GitLab
 * (src/gitlab/conversation.ts); a run without GitLab has none.
 */
export type Checkpoint = 'action' | 'reflection' | 'delivery';

/** A comment from someone who may steer the run: never the agent, a bot or an internal note. */
export interface HumanComment {
  id: number;
  /** The thread the comment sits in: its answer goes there. */
  discussionId: string;
  author: { id: number; username: string };
  createdAt: string;
  /** What was said; for an `/agent <instruction>` comment, the instruction. */
  text: string;
}

export interface ConversationPort {
  /**
   * The comments new since the last call, oldest first. At most one listing
   * of the notes a call, and none when the last one was too recent (an empty
   * answer then). A failed read is the port's to report: it answers none.
   */
  read(checkpoint: Checkpoint): Promise<HumanComment[]>;
  /** Posts `text` in the comment's thread; a failure is logged, never thrown. */
  answer(comment: HumanComment, text: string): Promise<void>;
  /**
   * Once the run's final note is written: the comments it will never hear
   * (made after its last read, or told "joined" by the bridge just before the
   * end) are answered that the run has ended. How many were answered.
   */
  close?(): Promise<number>;
}
