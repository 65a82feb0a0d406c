import { z } from 'zod';
import { created, defineOperation, ok, type RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated } from '../../core/response-schemas.js';
import { zConversationBody, zConversationRead, zMessageBody } from './messages.serializer.js';
import { getConversation, listConversationMessages, listMyConversations, markRead, MAX_PARTICIPANTS, openConversation, sendMessage } from './messages.service.js';

const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];
const READS = perUser(600, 60);
export const MESSAGE_MAX_CHARS = 5000;

const zConversationId = zUuid();
const zOptionalUuid = () => z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional());

export const openConversationOp = defineOperation({
  name: 'messages.open_conversation',
  method: 'POST',
  path: '/api/messages/conversations/',
  auth: 'user',
  summary: 'Open a conversation with other users (200 with the existing 1:1 conversation of a pair, else 201)',
  tags: ['messages'],
  rateLimits: perUser(30, 3600),
  input: z.object({
    participant_ids: z
      .array(zUuid(), { error: (i) => (i.input === undefined ? 'This field is required.' : 'Expected a list of user ids.') })
      .min(1, 'This list may not be empty.')
      .max(MAX_PARTICIPANTS, `A conversation has at most ${MAX_PARTICIPANTS} participants.`),
  }),
  responses: { 200: zConversationBody, 201: zConversationBody },
  errors: [403, 404],
  handler: async (input, ctx) => {
    const { created: isNew, conversation } = await openConversation(ctx, input.participant_ids);
    return isNew ? created(conversation) : ok(conversation);
  },
});

export const listConversationsOp = defineOperation({
  name: 'messages.conversations',
  method: 'GET',
  path: '/api/messages/conversations/',
  auth: 'user',
  summary: "The caller's conversations, newest activity first, with the other participants, the last message and the unread count",
  tags: ['messages'],
  rateLimits: READS,
  input: z.object({ page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zConversationBody) },
  handler: async (input, ctx) => ok(await listMyConversations(ctx, input)),
});

export const getConversationOp = defineOperation({
  name: 'messages.conversation',
  method: 'GET',
  path: '/api/messages/conversations/{conversation_id}/',
  auth: 'user',
  summary: 'One conversation (participants only; 404 for anyone else)',
  tags: ['messages'],
  rateLimits: READS,
  input: z.object({ conversation_id: zConversationId }),
  responses: { 200: zConversationBody },
  errors: [403],
  handler: async (input, ctx) => ok(await getConversation(ctx, input.conversation_id)),
});

export const listMessagesOp = defineOperation({
  name: 'messages.list',
  method: 'GET',
  path: '/api/messages/conversations/{conversation_id}/messages/',
  auth: 'user',
  summary:
    'Messages of a conversation, newest first (page_size default 30, max 100). `before=<message id>` lists only older messages: a cursor that stays put while new messages arrive; the page links carry it.',
  tags: ['messages'],
  rateLimits: READS,
  input: z.object({ conversation_id: zConversationId, page: zPage(), page_size: zPageSize(), before: zOptionalUuid() }),
  responses: { 200: zPaginated(zMessageBody) },
  handler: async ({ conversation_id, ...input }, ctx) => ok(await listConversationMessages(ctx, conversation_id, input)),
});

export const sendMessageOp = defineOperation({
  name: 'messages.send',
  method: 'POST',
  path: '/api/messages/conversations/{conversation_id}/messages/',
  auth: 'user',
  summary: 'Send a message (1 to 5,000 characters); every participant hears message:created',
  tags: ['messages'],
  rateLimits: perUser(120, 60),
  input: z.object({
    conversation_id: zConversationId,
    content: z
      .string({ error: (i) => (i.input === undefined ? 'This field is required.' : 'Not a valid string.') })
      .refine((t) => t.trim().length > 0, 'This field may not be blank.')
      .refine((t) => t.length <= MESSAGE_MAX_CHARS, `Ensure this field has no more than ${MESSAGE_MAX_CHARS} characters.`),
  }),
  responses: { 201: zMessageBody },
  errors: [403],
  handler: async (input, ctx) => created(await sendMessage(ctx, input.conversation_id, input.content)),
});

export const markReadOp = defineOperation({
  name: 'messages.read',
  method: 'POST',
  path: '/api/messages/conversations/{conversation_id}/read/',
  auth: 'user',
  summary: 'Mark the conversation read up to a message (default: the latest); the other participants hear conversation:read',
  tags: ['messages'],
  rateLimits: perUser(300, 60),
  input: z.object({ conversation_id: zConversationId, message_id: zOptionalUuid() }),
  responses: { 200: zConversationRead },
  handler: async (input, ctx) => ok(await markRead(ctx, input.conversation_id, input.message_id)),
});

export const messageOperations = [openConversationOp, listConversationsOp, getConversationOp, listMessagesOp, sendMessageOp, markReadOp];
