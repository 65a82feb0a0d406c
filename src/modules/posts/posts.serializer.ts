import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { imageDetails, mediaUrl, zImageDetails } from '../users/users.serializer.js';
import type { PollRecord, PostRecord } from './posts.queries.js';
import { POST_TYPES } from '../../models/index.js';
import { zCommunitySummary } from '../communities/communities.serializer.js';

/**
 * The contract's Post and Poll resources. One serializer for REST answers, socket acks and pushed events
 * (pushed copies are built for an anonymous viewer with the server's base URL).
 */
type UrlContext = Pick<RequestContext, 'baseUrl'>;

export const zPostAuthor = z
  .object({ id: z.string(), username: z.string(), display_name: z.string(), profile_picture: z.string().nullable() })
  .meta({ id: 'PostAuthor' });

export const zPollOption = z.object({
  id: z.string(),
  option_text: z.string(),
  votes_count: z.number().int(),
  order: z.number().int().describe('Zero based'),
  user_voted: z.boolean(),
  percentage: z.number().describe('Share of all votes of the poll, 0 to 100, one decimal'),
});

export const zPollData = z
  .object({
    id: z.string(),
    question: z.string(),
    allows_multiple_choices: z.boolean(),
    expires_at: z.string(),
    total_votes: z.number().int().describe('Votes cast over all options (a multiple-choice voter counts once per option)'),
    user_voted: z.boolean(),
    is_expired: z.boolean(),
    options: z.array(zPollOption),
  })
  .meta({ id: 'Poll' });
export type PollData = z.infer<typeof zPollData>;

export const zAudioData = z.object({
  id: z.string(),
  audio_file: z.string(),
  duration_seconds: z.number().int(),
  transcription: z.string().nullable(),
  waveform_data: z.array(z.number()).nullable().describe('Amplitudes from 0 to 1 along the recording; not computed today, so null'),
});

/** What a share post embeds (the marketplace's summaries; the communities module's is its own component). */
export const zSharedProduct = z
  .object({
    id: z.string(),
    name: z.string(),
    price: z.string().nullable().describe('Two decimals; null for a product without a fixed price'),
    images: z.array(z.object({ id: z.string(), url: z.string() })),
    store: z.object({ id: z.string(), name: z.string() }),
  })
  .meta({ id: 'SharedProduct' });

export const zSharedStore = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    logo: z.string().nullable(),
    location_name: z.string().nullable(),
    owner: z.object({ username: z.string(), display_name: z.string() }),
  })
  .meta({ id: 'SharedStore' });

export const zPostMedia = z
  .object({
    id: z.string(),
    file: z.string(),
    media_type: z.string(),
    order: z.number().int(),
    alt_text: z.string().nullable().describe("What the image shows, for screen readers (at most 1,500 characters); null when the author gave none"),
  })
  .extend(zImageDetails.shape)
  .meta({ id: 'PostMedia' });

/** DESIGN.md section 13: an event post's object (null on other types). */
export const zEventData = z
  .object({
    starts_at: z.string(),
    ends_at: z.string().nullable().describe('null: no end given'),
    place_name: z.string().nullable(),
    address: z.string().nullable(),
    capacity: z.number().int().nullable().describe('People who may be going at most; null: unlimited'),
    going_count: z.number().int(),
    interested_count: z.number().int(),
    user_rsvp: z.enum(['going', 'interested']).nullable().describe("The caller's answer; null: none (not_going, or anonymous)"),
  })
  .meta({ id: 'EventData' });
export type EventData = z.infer<typeof zEventData>;

/** A lost_found post's object: what was reported, and whether its author resolved it. */
export const zLostFoundData = z
  .object({
    status: z.enum(['lost', 'found', 'resolved']),
    resolved_at: z.string().nullable(),
  })
  .meta({ id: 'LostFoundData' });

export const zPostBody = z
  .object({
    id: z.string(),
    user: zPostAuthor,
    post_type: z.enum(POST_TYPES),
    title: z.string().nullable(),
    content: z.string(),
    content_warning: z.string().nullable().describe('Shown in place of the content until the reader taps it (at most 200 characters); null for none'),
    tags: z.array(z.string()).describe('Its hashtags (#word: letters of any script, digits, _; 1 to 50), lower case, in order of first use'),
    media: z.array(zPostMedia),
    location: z.string().nullable(),
    location_name: z.string().nullable(),
    community: z.string().nullable(),
    community_name: z.string().nullable(),
    shared_product: zSharedProduct.nullable(),
    shared_store: zSharedStore.nullable(),
    shared_community: zCommunitySummary.nullable(),
    poll_data: zPollData.nullable(),
    audio_data: zAudioData.nullable(),
    event_data: zEventData.nullable(),
    lost_found_data: zLostFoundData.nullable(),
    likes_count: z.number().int(),
    comments_count: z.number().int(),
    views_count: z.number().int(),
    has_liked: z.boolean(),
    has_bookmarked: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    edited_at: z.string().nullable().describe('When its author last changed its text; null until then (earlier versions: GET /api/feed/posts/{post_id}/history/)'),
  })
  .meta({ id: 'Post' });
export type PostBody = z.infer<typeof zPostBody>;

const oneDecimal = (x: number) => Math.round(x * 10) / 10;

/** `now` is the clock reads compare expiry with (is_expired never waits for the expiry job). */
export function serializePoll(poll: PollRecord, now: Date = new Date()): PollData {
  const total = poll.options.reduce((n, o) => n + o.votesCount, 0);
  const voted = new Set(poll.viewerOptionIds);
  return {
    id: poll.id,
    question: poll.question,
    allows_multiple_choices: poll.allowsMultipleChoices,
    expires_at: poll.expiresAt.toISOString(),
    total_votes: total,
    user_voted: voted.size > 0,
    is_expired: poll.expiresAt.getTime() <= now.getTime(),
    options: poll.options.map((o) => ({
      id: o.id,
      option_text: o.optionText,
      votes_count: o.votesCount,
      order: o.position,
      user_voted: voted.has(o.id),
      percentage: total ? oneDecimal((o.votesCount / total) * 100) : 0,
    })),
  };
}

export function serializePost(post: PostRecord, ctx: UrlContext, now: Date = new Date()): PostBody {
  return {
    id: post.id,
    user: {
      id: post.author.id,
      username: post.author.username,
      display_name: post.author.displayName,
      profile_picture: mediaUrl(post.author.profilePicture, ctx.baseUrl),
    },
    post_type: post.postType,
    title: post.title,
    content: post.content,
    content_warning: post.contentWarning,
    tags: post.tags,
    media: post.media.map((m) => ({ id: m.id, file: mediaUrl(m.file, ctx.baseUrl)!, media_type: m.mediaType, order: m.position, alt_text: m.altText, ...imageDetails(m.file, ctx.baseUrl) })),
    location: post.locationId,
    location_name: post.locationName,
    community: post.communityId,
    community_name: post.communityName,
    shared_product: post.sharedProduct,
    shared_store: post.sharedStore,
    shared_community: post.sharedCommunity,
    poll_data: post.poll ? serializePoll(post.poll, now) : null,
    audio_data: post.audio
      ? {
          id: post.audio.id,
          audio_file: mediaUrl(post.audio.file, ctx.baseUrl)!,
          duration_seconds: post.audio.durationSeconds,
          transcription: post.audio.transcription,
          waveform_data: (post.audio.waveformData as number[] | null | undefined) ?? null,
        }
      : null,
    event_data: post.event
      ? {
          starts_at: post.event.startsAt.toISOString(),
          ends_at: post.event.endsAt?.toISOString() ?? null,
          place_name: post.event.placeName,
          address: post.event.address,
          capacity: post.event.capacity,
          going_count: post.event.goingCount,
          interested_count: post.event.interestedCount,
          user_rsvp: post.event.viewerRsvp,
        }
      : null,
    lost_found_data:
      post.postType === 'lost_found' && post.lostFoundStatus
        ? { status: post.resolvedAt ? 'resolved' : post.lostFoundStatus, resolved_at: post.resolvedAt?.toISOString() ?? null }
        : null,
    likes_count: post.likesCount,
    comments_count: post.commentsCount,
    views_count: post.viewsCount,
    has_liked: post.hasLiked,
    has_bookmarked: post.hasBookmarked,
    created_at: post.createdAt.toISOString(),
    updated_at: post.updatedAt.toISOString(),
    edited_at: post.editedAt?.toISOString() ?? null,
  };
}
