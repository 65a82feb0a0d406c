import type { TestApp } from './test-app.js';
import { unique } from './test-app.js';
import { anIp } from './caller.js';
import { aResident } from '../builders/locations.js';
import { aStore } from '../builders/stores.js';
import { aNeighbourhood } from '../builders/posts.js';
import { aCategoryId } from '../builders/communities.js';

/**
 * Every way an image reaches storage: each path uploads one file as a fresh user and answers the HTTP status and
 * the URL the API gives for the stored image (null when refused). Tests that prove a rule about uploads run it
 * through all of these, so a new path that forgets the rule is one line here away from being caught.
 */
export interface Upload {
  bytes: Buffer;
  filename: string;
  contentType?: string;
}

export interface UploadPath {
  name: string;
  upload(app: TestApp, file: Upload): Promise<{ status: number; url: string | null; body: any }>;
}

const attachOptions = (f: Upload) => ({ filename: f.filename, contentType: f.contentType ?? 'application/octet-stream' });

export const IMAGE_UPLOAD_PATHS: UploadPath[] = [
  {
    name: 'registration profile_picture',
    async upload(app, file) {
      const username = unique('u').replace(/[^a-z0-9_]/gi, '').slice(0, 30);
      const res = await app
        .http()
        .post('/api/auth/register/')
        .set('X-Forwarded-For', anIp())
        .field('email', `${username}@example.test`)
        .field('username', username)
        .field('display_name', 'Uploader')
        .field('password', 'a-long-enough-password-1')
        .attach('profile_picture', file.bytes, attachOptions(file));
      return { status: res.status, url: res.body?.user?.profile_picture ?? null, body: res.body };
    },
  },
  profileField('profile_picture'),
  profileField('banner'),
  {
    name: 'profile picture over the socket (users.profile_patch)',
    async upload(app, file) {
      const user = await aResident(app);
      const res = await app.emit(
        'users.profile_patch',
        { profile_picture: { fieldname: 'profile_picture', originalname: file.filename, mimetype: file.contentType ?? 'application/octet-stream', size: file.bytes.length, buffer: file.bytes } },
        { token: user.token },
      );
      return { status: res.status, url: res.body?.profile_picture ?? null, body: res.body };
    },
  },
  {
    name: 'post media',
    async upload(app, file) {
      const { founder: user } = await aNeighbourhood(app);
      const res = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${user.token}`).field('post_type', 'image').attach('media', file.bytes, attachOptions(file));
      return { status: res.status, url: res.body?.media?.[0]?.file ?? null, body: res.body };
    },
  },
  storeField('logo'),
  storeField('banner'),
  {
    name: 'product uploaded_images',
    async upload(app, file) {
      const owner = await aResident(app);
      const store = await aStore(app, owner);
      const res = await app
        .http()
        .post('/api/stores/products/')
        .set('Authorization', `Bearer ${owner.token}`)
        .field('store_id', store.id)
        .field('name', unique('Thing '))
        .field('category', 'home_garden')
        .field('stock', '3')
        .field('price_type', 'fixed')
        .field('price', '4.50')
        .attach('uploaded_images', file.bytes, attachOptions(file));
      return { status: res.status, url: res.body?.images?.[0]?.image ?? null, body: res.body };
    },
  },
  communityField('avatar'),
  communityField('banner'),
];

function profileField(field: 'profile_picture' | 'banner'): UploadPath {
  return {
    name: `profile ${field}`,
    async upload(app, file) {
      const user = await aResident(app);
      const res = await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${user.token}`).attach(field, file.bytes, attachOptions(file));
      return { status: res.status, url: res.body?.[field] ?? null, body: res.body };
    },
  };
}

function storeField(field: 'logo' | 'banner'): UploadPath {
  return {
    name: `store ${field}`,
    async upload(app, file) {
      const owner = await aResident(app);
      const slug = unique('shop').toLowerCase().replace(/[^a-z0-9-]/g, '-');
      const res = await app
        .http()
        .post('/api/stores/stores/')
        .set('Authorization', `Bearer ${owner.token}`)
        .field('name', `Shop ${slug}`)
        .field('slug', slug)
        .attach(field, file.bytes, attachOptions(file));
      return { status: res.status, url: res.body?.[field] ?? null, body: res.body };
    },
  };
}

function communityField(field: 'avatar' | 'banner'): UploadPath {
  return {
    name: `community ${field}`,
    async upload(app, file) {
      const owner = await aResident(app);
      const res = await app
        .http()
        .post('/api/communities/communities/')
        .set('Authorization', `Bearer ${owner.token}`)
        .field('name', unique('Club '))
        .field('category', await aCategoryId(app, owner))
        .attach(field, file.bytes, attachOptions(file));
      return { status: res.status, url: res.body?.[field] ?? null, body: res.body };
    },
  };
}
