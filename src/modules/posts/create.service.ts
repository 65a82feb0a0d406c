import type { AuthedContext } from '../../core/context.js';
import type { CheckedAudio, ProcessedImage, ProcessedUpload } from '../../core/uploads.js';
import type { PendingEvents } from '../../core/events.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { postAudio, postMedia, posts, type PostType } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { publishAfterCommit, transaction, type Tx } from '../../platform/db.js';
import { AppError } from '../../core/errors.js';
import { readAudioDurationSeconds } from './audio.js';
import { mentionedUsernames, notifyMentions } from './mentions.js';
import { insertPoll } from './polls.service.js';
import { completePosts, findAuthorLocation, insertTextPostAtHome, loadPost } from './posts.queries.js';
import { serializePost, type PostBody } from './posts.serializer.js';
import { checkPostTarget, checkShareTarget, LOCATION_REQUIRED_BODY, onCommunityPostCreated, type PostTarget } from './targets.js';
import { insertEvent } from './event-posts.service.js';
import { checkAlertAllowance, queueAlertFanout } from './alerts.service.js';
import './posts.events.js';

export interface CreatePostInput {
  post_type: PostType;
  content?: string;
  title?: string;
  content_warning?: string | null;
  media_alt_texts?: Array<string | null>;
  community_id?: string;
  shared_product_id?: string;
  shared_store_id?: string;
  shared_community_id?: string;
  poll_question?: string;
  poll_options?: string[];
  poll_allows_multiple?: boolean;
  poll_expires_at?: Date;
  audio_file?: CheckedAudio;
  media?: ProcessedImage[];
  event_starts_at?: Date;
  event_ends_at?: Date;
  event_place_name?: string;
  event_address?: string;
  event_capacity?: number;
  lost_found_status?: 'lost' | 'found';
  recommended_store_id?: string;
}


/**
 * Create a post of any type. Everything that can be refused is checked before any file is stored or any row
 * written (target, membership, share targets, the audio's duration); files are stored before the transaction
 * and removed again if it fails, so a refused post leaves nothing behind.
 */
export async function createPost(ctx: AuthedContext, input: CreatePostInput): Promise<PostBody> {
  if (isTextPostAtHome(input)) return createTextPostAtHome(ctx, input);
  const target = await checkPostTarget(ctx.user.id, input.community_id, () => findAuthorLocation(ctx.user.id));
  await checkShareTarget(input);
  const durationSeconds = input.audio_file ? await readAudioDurationSeconds(input.audio_file) : null;

  const stored: string[] = [];
  const store = async (folder: string, f: ProcessedUpload) => {
    const key = await platform.storage.put(folder, f);
    stored.push(key);
    return key;
  };
  try {
    const mediaKeys: string[] = [];
    for (const image of input.media ?? []) mediaKeys.push(await store('posts/media', image));
    const audioKey = input.audio_file ? await store('posts/audio', input.audio_file) : null;
    return await transaction(platform.db, async (tx, events) => {
      // Only residents post alerts (an alert goes to the author's own place, never a community), 3 a day.
      if (input.post_type === 'alert') await checkAlertAllowance(tx, ctx.user.id);
      const id = await insertPostRows(tx, events, ctx, input, target, { mediaKeys, audioKey, durationSeconds });
      const post = (await loadPost(id, ctx.user.id, tx, ctx.baseUrl))!;
      // The pushed copy's URLs use the server's base; the author's own has_liked and user_voted are false anyway.
      const pushed = ctx.baseUrl === serverBaseUrl() ? post : (await loadPost(id, null, tx, serverBaseUrl()))!;
      events.add('post.created', { post: serializePost(pushed, { baseUrl: serverBaseUrl() }), locationId: post.locationId, communityId: post.communityId });
      return serializePost(post, ctx);
    });
  } catch (err) {
    await Promise.all(stored.map((key) => platform.storage.delete(key).catch(() => undefined)));
    throw err;
  }
}

/**
 * The commonest post, a text post to the author's neighbourhood that mentions nobody, writes one row and
 * checks nothing but the author's location: one statement does it all (see insertTextPostAtHome), where the
 * general path takes five round trips (location, BEGIN, INSERT, read back, COMMIT). Every live post pays for
 * its round trips on the node that also pushes it to the neighbourhood's sockets.
 */
function isTextPostAtHome(input: CreatePostInput): boolean {
  return (
    input.post_type === 'text' &&
    !input.community_id &&
    !input.media?.length &&
    !input.audio_file &&
    mentionedUsernames(`${input.title ?? ''}\n${input.content ?? ''}`).length === 0
  );
}

async function createTextPostAtHome(ctx: AuthedContext, input: CreatePostInput): Promise<PostBody> {
  const row = await insertTextPostAtHome(ctx.user.id, { title: input.title ?? null, content: input.content ?? '', contentWarning: input.content_warning ?? null });
  if (!row) throw new AppError(400, { ...LOCATION_REQUIRED_BODY });
  // A text post has no attachment and embeds no summary: this reads nothing, and the record holds no URL
  // (each copy is serialized with its own base).
  const [post] = await completePosts([row], ctx.user.id);
  publishAfterCommit('post.created', { post: serializePost(post, { baseUrl: serverBaseUrl() }), locationId: post.locationId, communityId: null });
  return serializePost(post, ctx);
}

async function insertPostRows(
  tx: Tx,
  events: PendingEvents,
  ctx: AuthedContext,
  input: CreatePostInput,
  target: PostTarget,
  files: { mediaKeys: string[]; audioKey: string | null; durationSeconds: number | null },
): Promise<string> {
  const [row] = await tx
    .insert(posts)
    .values({
      userId: ctx.user.id,
      postType: input.post_type,
      title: input.title ?? null,
      content: input.content ?? '',
      contentWarning: input.content_warning ?? null,
      locationId: target.kind === 'location' ? target.locationId : null,
      communityId: target.kind === 'community' ? target.communityId : null,
      sharedProductId: input.post_type === 'product_share' ? input.shared_product_id : null,
      // A recommendation names its store where a store share does (shown as `shared_store`).
      sharedStoreId: input.post_type === 'store_share' ? input.shared_store_id : input.post_type === 'recommendation' ? input.recommended_store_id : null,
      sharedCommunityId: input.post_type === 'community_share' ? input.shared_community_id : null,
      lostFoundStatus: input.post_type === 'lost_found' ? input.lost_found_status : null,
    })
    .returning({ id: posts.id });
  const postId = row.id;
  if (input.post_type === 'event') {
    await insertEvent(tx, postId, {
      startsAt: input.event_starts_at!,
      endsAt: input.event_ends_at ?? null,
      placeName: input.event_place_name ?? null,
      address: input.event_address ?? null,
      capacity: input.event_capacity ?? null,
    });
  }
  if (input.post_type === 'alert' && target.kind === 'location') {
    const text = `${input.title ? `${input.title}: ` : ''}${input.content ?? ''}`;
    await queueAlertFanout(tx, { postId, locationId: target.locationId, actorId: ctx.user.id, message: `Alert from ${ctx.user.username}: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}` });
  }
  if (files.mediaKeys.length) {
    await tx.insert(postMedia).values(files.mediaKeys.map((file, position) => ({ postId, file, position, altText: input.media_alt_texts?.[position] ?? null })));
  }
  if (input.post_type === 'poll') {
    await insertPoll(tx, postId, {
      question: input.poll_question!,
      options: input.poll_options!,
      allowsMultiple: input.poll_allows_multiple ?? false,
      expiresAt: input.poll_expires_at!,
    });
  }
  if (files.audioKey) {
    await tx.insert(postAudio).values({ postId, file: files.audioKey, durationSeconds: files.durationSeconds ?? 0 });
  }
  if (target.kind === 'community') await onCommunityPostCreated(tx, events, { postId, communityId: target.communityId, actorId: ctx.user.id, actorUsername: ctx.user.username });
  await notifyMentions(tx, events, { text: `${input.title ?? ''}\n${input.content ?? ''}`, actorId: ctx.user.id, actorUsername: ctx.user.username, targetType: 'Post', targetId: postId });
  return postId;
}
