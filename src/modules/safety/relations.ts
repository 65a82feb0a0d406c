/**
 * Block and mute are the same kind of thing to store and list: one person (the actor) names another (the target).
 * What each one hides is decided elsewhere (visibility.ts); this table only says where each is kept and served.
 */
export interface SafetyRelation {
  /** `blocks` or `mutes`: the operation names (`safety.blocks_create`) and the REST path segment. */
  kind: 'blocks' | 'mutes';
  /** The verb for summaries and the self-error: "block", "mute". */
  verb: string;
  table: string;
  actorColumn: string;
  targetColumn: string;
}

export const BLOCKS: SafetyRelation = { kind: 'blocks', verb: 'block', table: 'user_blocks', actorColumn: 'blocker_id', targetColumn: 'blocked_id' };
export const MUTES: SafetyRelation = { kind: 'mutes', verb: 'mute', table: 'user_mutes', actorColumn: 'muter_id', targetColumn: 'muted_id' };
