import { fieldError, forbidden } from '../../core/errors.js';
import { ORDER_PROGRESS, type OrderStatus } from '../../models/index.js';

/**
 * Who may move an order to which status (DESIGN.md section 8), in one place. The seller moves it forward along
 * ORDER_PROGRESS (steps may be skipped) or cancels it until it is shipped; the buyer may only cancel, and only
 * while it is pending; a cancelled order is final.
 */
export type OrderParty = 'seller' | 'buyer';

export const STATUS_FORWARD_ONLY = "An order's status only moves forward: pending → processing → shipped → delivered.";
export const CANCELLED_IS_FINAL = 'This order was cancelled: its status changes no more.';
export const BUYER_CANCELS_ONLY_PENDING = 'Only a pending order can be cancelled by its buyer: ask the seller.';
export const notCancellable = (status: OrderStatus) => `A ${status} order can no longer be cancelled.`;

/** The statuses the seller may still cancel from: before the units leave the shop. */
const SELLER_CANCELS_FROM: readonly OrderStatus[] = ['pending', 'processing'];

/**
 * True when `party` asks for a real change from `from` to `to`; false for the same status again, a no-op that
 * tells nobody (a retried cancellation included). Otherwise it throws: 403 when the buyer asks for anything but a
 * cancellation (that is the seller's call, as before cancellations existed), and a 400 field error on `status`
 * when the order's state forbids the change (the buyer's late cancellation included: the buyer may cancel, just
 * not any more, so the answer is about the order, not about the caller's rights).
 */
export function isStatusChange(party: OrderParty, from: OrderStatus, to: OrderStatus): boolean {
  if (party === 'buyer' && to !== 'cancelled') throw forbidden();
  if (to === from) return false;
  if (from === 'cancelled') throw fieldError('status', CANCELLED_IS_FINAL);
  if (to === 'cancelled') {
    if (party === 'buyer' && from !== 'pending') throw fieldError('status', BUYER_CANCELS_ONLY_PENDING);
    if (!SELLER_CANCELS_FROM.includes(from)) throw fieldError('status', notCancellable(from));
    return true;
  }
  if (ORDER_PROGRESS.indexOf(to) < ORDER_PROGRESS.indexOf(from)) throw fieldError('status', STATUS_FORWARD_ONLY);
  return true;
}
