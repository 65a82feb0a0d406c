import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, fieldError, notFound } from '../../core/errors.js';
import { pollOptions, polls } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type Tx } from '../../platform/db.js';
import { loadPollsOfPosts } from './posts.queries.js';
import { requireViewablePostById } from '../policy/post-visibility.js';
import { serializePoll, type PollData } from './posts.serializer.js';
import './posts.events.js';

export interface NewPoll {
  question: string;
  options: string[];
  allowsMultiple: boolean;
  expiresAt: Date;
}

export async function insertPoll(tx: Tx, postId: string, poll: NewPoll): Promise<void> {
  const [row] = await tx
    .insert(polls)
    .values({ postId, question: poll.question, allowsMultipleChoices: poll.allowsMultiple, expiresAt: poll.expiresAt })
    .returning({ id: polls.id });
  await tx.insert(pollOptions).values(poll.options.map((optionText, position) => ({ pollId: row.id, optionText, position })));
}

export interface VoteInput {
  post_id: string;
  option_id?: string;
  option_ids?: string[];
}

export interface VoteAnswer {
  message: string;
  voted_options: string[];
  poll_data: PollData;
}

/**
 * A vote sets the caller's choice on the poll: `{option_id}` (or a one-element `{option_ids}`) on a
 * single-choice poll replaces an earlier vote; `{option_ids}` on a multiple-choice poll sets exactly those
 * options (an option left out is un-voted). Only the differences touch the counters, with single-statement
 * increments on option rows locked in id order (two voters never deadlock); one voter's concurrent votes are
 * serialised by a transaction lock on (poll, voter), so a single-choice poll never holds two of its votes.
 */
export async function votePoll(ctx: AuthedContext, input: VoteInput): Promise<VoteAnswer> {
  const field = input.option_ids !== undefined ? 'option_ids' : 'option_id';
  const chosen = [...new Set(input.option_ids ?? (input.option_id ? [input.option_id] : []))];
  if (!chosen.length) throw fieldError('option_ids', 'Choose at least one option (option_ids, or option_id on a single-choice poll).');
  const post = await requireViewablePostById(ctx.user, input.post_id);
  return transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ id: string; allows_multiple_choices: boolean; expires_at: Date; is_poll: boolean }>(sql`
      SELECT pl.id, pl.allows_multiple_choices, pl.expires_at, p.post_type = 'poll' AS is_poll
      FROM posts p LEFT JOIN polls pl ON pl.post_id = p.id WHERE p.id = ${input.post_id}::uuid`);
    const poll = rows[0];
    if (!poll) throw notFound();
    if (!poll.id) throw new AppError(400, { error: 'This post has no poll.' });
    if (new Date(poll.expires_at).getTime() <= Date.now()) throw new AppError(400, { error: 'Poll has expired' });
    if (!poll.allows_multiple_choices && chosen.length > 1) throw fieldError(field, 'This poll allows only one choice.');
    const { rows: known } = await tx.execute<{ id: string }>(sql`
      SELECT id FROM poll_options WHERE poll_id = ${poll.id}::uuid AND id = ANY(${sql.param(chosen)}::uuid[])`);
    if (known.length !== chosen.length) throw fieldError(field, 'Choose options of this poll only.');

    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`poll-vote|${poll.id}|${ctx.user.id}`}, 0))`);
    const { rows: previous } = await tx.execute<{ option_id: string }>(sql`
      SELECT option_id FROM poll_votes WHERE poll_id = ${poll.id}::uuid AND user_id = ${ctx.user.id}::uuid`);
    const before = new Set(previous.map((r) => r.option_id));
    const added = chosen.filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !chosen.includes(id));
    if (added.length || removed.length) {
      const touched = [...added, ...removed].sort();
      await tx.execute(sql`SELECT id FROM poll_options WHERE id = ANY(${sql.param(touched)}::uuid[]) ORDER BY id FOR UPDATE`);
      if (removed.length) {
        await tx.execute(sql`DELETE FROM poll_votes WHERE user_id = ${ctx.user.id}::uuid AND option_id = ANY(${sql.param(removed)}::uuid[])`);
      }
      if (added.length) {
        await tx.execute(sql`
          INSERT INTO poll_votes (poll_id, option_id, user_id)
          SELECT ${poll.id}::uuid, o, ${ctx.user.id}::uuid FROM unnest(${sql.param(added)}::uuid[]) AS o`);
      }
      await tx.execute(sql`
        UPDATE poll_options SET votes_count = votes_count + CASE WHEN id = ANY(${sql.param(added)}::uuid[]) THEN 1 ELSE -1 END
        WHERE id = ANY(${sql.param(touched)}::uuid[])`);
    }
    const anonymous = (await loadPollsOfPosts([input.post_id], null, tx)).get(input.post_id)!;
    const now = new Date();
    if (added.length || removed.length) events.add('poll.updated', { postId: input.post_id, authorId: post.userId, pollData: serializePoll(anonymous, now) });
    return {
      message: 'Vote recorded successfully.',
      voted_options: chosen,
      poll_data: serializePoll({ ...anonymous, viewerOptionIds: chosen }, now),
    };
  });
}
