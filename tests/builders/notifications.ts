import { transaction } from '../../src/platform/db.js';
import { platform } from '../../src/platform/index.js';
import { notify, type NewNotification } from '../../src/modules/notifications/notifications.service.js';
import type { NotificationBody } from '../../src/modules/notifications/notifications.serializer.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * A notification created the way every module creates one: the real `notify()` inside a transaction,
 * so it is pushed after the commit. (No operation of this phase notifies anyone yet.)
 */
export async function aNotification(app: TestApp, recipientId: string, overrides: Partial<NewNotification> = {}): Promise<NotificationBody> {
  const body = await transaction(platform.db, (tx, events) =>
    notify(tx, events, { recipientId, type: 'general', message: 'Welcome to the neighbourhood!', ...overrides }, { baseUrl: app.url }),
  );
  if (!body) throw new Error('aNotification: notify() created nothing (actor and recipient are the same user?)');
  return body;
}
