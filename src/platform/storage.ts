import fs from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from './config.js';
import type { ProcessedUpload } from '../core/uploads.js';
import { IMAGE_VARIANTS, audioKey, imageKey, storedFilesOf, variantKey } from '../core/media/media-names.js';

/**
 * Where uploaded files go: local disk under DATA_DIR/media (served at /media/) by default,
 * S3 (or any S3-compatible server) when S3_BUCKET is set. Rows store the key; serializers turn it
 * into an absolute URL with `url()`.
 *
 * Only uploads that were checked and rewritten (core/uploads.ts) can be stored: the name and type of what is
 * stored come from their bytes (core/media/media-names.ts), never from the client. An image is stored with its
 * variants, and deleting its key deletes them too.
 */
export interface Storage {
  readonly kind: 'disk' | 's3';
  put(folder: string, file: ProcessedUpload): Promise<string>;
  /** Removes the file and, for an image, its variants. */
  delete(key: string): Promise<void>;
  /** The stored bytes, or null when there is no such file (`media:reprocess` reads files stored by older releases). */
  read(key: string): Promise<Buffer | null>;
  url(key: string, baseUrl: string): string;
}

/** Served with every stored file: names are never reused, so a file never changes under its URL. */
export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The storage rules shared by disk and S3; each writes, deletes and reads plain objects its own way. */
abstract class ObjectStorage implements Storage {
  abstract readonly kind: 'disk' | 's3';
  abstract url(key: string, baseUrl: string): string;
  protected abstract putObject(key: string, body: Buffer, contentType: string): Promise<void>;
  protected abstract deleteObject(key: string): Promise<void>;
  abstract read(key: string): Promise<Buffer | null>;

  async put(folder: string, file: ProcessedUpload): Promise<string> {
    const objects = storedObjects(folder, file);
    const written: string[] = [];
    try {
      for (const o of objects) {
        await this.putObject(o.key, o.body, o.contentType);
        written.push(o.key);
      }
    } catch (err) {
      await Promise.all(written.map((k) => this.deleteObject(k).catch(() => undefined)));
      throw err;
    }
    return objects[0]!.key;
  }

  async delete(key: string): Promise<void> {
    await Promise.all(storedFilesOf(key).map((k) => this.deleteObject(k)));
  }
}

/** The objects one upload is stored as: the file itself first, then an image's WebP variants. */
export function storedObjects(folder: string, file: ProcessedUpload): Array<{ key: string; body: Buffer; contentType: string }> {
  if (file.kind === 'audio') return [{ key: audioKey(folder, file.type), body: file.body, contentType: file.type }];
  const key = imageKey(folder, file.type, file);
  return [
    { key, body: file.body, contentType: file.type },
    ...file.variants.map((v) => ({ key: variantKey(key, IMAGE_VARIANTS.find((x) => x.size === v.size)!.name)!, body: v.body, contentType: 'image/webp' })),
  ];
}

export class DiskStorage extends ObjectStorage {
  readonly kind = 'disk' as const;
  constructor(readonly root: string) {
    super();
  }

  private pathOf(key: string): string {
    const file = path.resolve(this.root, key);
    // Keys are ours (media-names.ts), but a row edited by hand must never reach outside the media folder.
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key outside the media folder: ${key}`);
    return file;
  }

  protected async putObject(key: string, body: Buffer): Promise<void> {
    const file = this.pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, body);
  }

  protected async deleteObject(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  url(key: string, baseUrl: string): string {
    return `${baseUrl}/media/${key}`;
  }
}

/**
 * The AWS SDK is loaded on first use, not at start: importing it costs about half a second, which a service
 * storing files on disk (the default) should never pay.
 */
export class S3Storage extends ObjectStorage {
  readonly kind = 's3' as const;
  private sdk: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }> | null = null;

  constructor(private readonly config: Config) {
    super();
  }

  private connect() {
    const { config } = this;
    return (this.sdk ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        forcePathStyle: Boolean(config.S3_ENDPOINT),
        credentials: config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY ?? '' } : undefined,
        // S3-compatible servers otherwise store streamed uploads with their chunk framing (DESIGN.md 2.2).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    })));
  }

  /**
   * The object's type is the one found in its bytes, and it is cached as long as a file on disk. S3 cannot send
   * `nosniff` or a CSP with an object: serve the bucket from its own origin (never the API's), or add those two
   * headers at the CDN in front of it (docs/modules/media.md).
   */
  protected async putObject(key: string, body: Buffer, contentType: string): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(
      new sdk.PutObjectCommand({ Bucket: this.config.S3_BUCKET, Key: key, Body: body, ContentType: contentType, CacheControl: MEDIA_CACHE_CONTROL, ContentDisposition: 'inline' }),
    );
  }

  protected async deleteObject(key: string): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.S3_BUCKET, Key: key }));
  }

  async read(key: string): Promise<Buffer | null> {
    const { sdk, client } = await this.connect();
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.S3_BUCKET, Key: key }));
      return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : null;
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return null;
      throw err;
    }
  }

  url(key: string): string {
    const base = this.config.S3_PUBLIC_URL ?? (this.config.S3_ENDPOINT ? `${this.config.S3_ENDPOINT.replace(/\/+$/, '')}/${this.config.S3_BUCKET}` : `https://${this.config.S3_BUCKET}.s3.${this.config.S3_REGION}.amazonaws.com`);
    return `${base.replace(/\/+$/, '')}/${key}`;
  }

  destroy(): void {
    void this.sdk?.then(({ client }) => client.destroy());
  }
}

export function createStorage(config: Config): Storage {
  return config.S3_BUCKET ? new S3Storage(config) : new DiskStorage(path.join(config.dataDir, 'media'));
}
