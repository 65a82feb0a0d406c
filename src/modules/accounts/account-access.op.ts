import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import { zBool } from '../../core/validation.js';
import { zUserBody } from '../users/users.serializer.js';
import { adminUpdateUser } from './account-access.service.js';

export const adminUpdateUserOp = defineOperation({
  name: 'admin.users_update',
  method: 'PATCH',
  path: '/api/admin/users/{username}/',
  auth: 'admin',
  summary: 'Grant or revoke verification, staff, or deactivate a user (administrators)',
  tags: ['admin', 'users'],
  input: z.object({ username: z.string().min(1), is_verified: zBool().optional(), is_staff: zBool().optional(), is_active: zBool().optional() }),
  responses: { 200: zUserBody.extend({ is_staff: z.boolean(), is_active: z.boolean() }).meta({ id: 'AdminUser' }) },
  handler: async (input, ctx) => ok(await adminUpdateUser(ctx, input.username, input)),
});

/** Listed right after the users module's operations in src/registry.ts (where it was defined before). */
export const accountAccessOperations = [adminUpdateUserOp];
