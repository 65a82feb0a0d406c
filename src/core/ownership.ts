import { forbidden, notFound } from './errors.js';

/**
 * The one ownership check: may this caller change a thing whose owners are `ownerIds` (a store's owner, a
 * product's store owner, a community's owner, a post's or comment's or review's author, an order's buyer and
 * seller)? Every module calls it instead of comparing ids by hand, so "who owns it" and "what a refusal says"
 * are decided here.
 *
 * An owner id may be null (an order whose seller's account is gone): null is nobody, never a match.
 *
 * A refusal is the contract's 403 `{detail: 'You do not have permission to perform this action.'}` (or the
 * module's own detail), unless the module hides the thing's existence from strangers (`hide: true`, orders):
 * then it is the same 404 as for an id that does not exist.
 */
export interface OwnerCheck {
  /** Answer 404 Not found., as for a missing id, instead of 403. */
  hide?: boolean;
  /** The 403's detail, where the module has its own wording. */
  detail?: string;
}

type OwnerIds = string | null | undefined | readonly (string | null | undefined)[];

export function isOwner(caller: { id: string }, ownerIds: OwnerIds): boolean {
  const owners = Array.isArray(ownerIds) ? ownerIds : [ownerIds];
  return owners.some((owner) => owner != null && owner === caller.id);
}

export function requireOwner(caller: { id: string }, ownerIds: OwnerIds, check: OwnerCheck = {}): void {
  if (isOwner(caller, ownerIds)) return;
  throw check.hide ? notFound() : forbidden(check.detail);
}
