import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from './config.js';

/**
 * Where uploaded files go: local disk under DATA_DIR/media (served at /media/) by default,
 * S3 (or any S3-compatible server) when S3_BUCKET is set. Rows store the key; serializers turn it
 * into an absolute URL with `url()`.
 */
export interface Storage {
  readonly kind: 'disk' | 's3';
  put(folder: string, originalName: string, body: Buffer, contentType: string): Promise<string>;
  delete(key: string): Promise<void>;
  url(key: string, baseUrl: string): string;
}

export function newKey(folder: string, originalName: string): string {
  const ext = path.extname(originalName).toLowerCase().replace(/[^.a-z0-9]/g, '').slice(0, 8);
  return `${folder.replace(/\/+$/, '')}/${crypto.randomUUID()}${ext}`;
}

export class DiskStorage implements Storage {
  readonly kind = 'disk' as const;
  constructor(readonly root: string) {}

  async put(folder: string, originalName: string, body: Buffer): Promise<string> {
    const key = newKey(folder, originalName);
    const file = path.join(this.root, key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, body);
    return key;
  }

  async delete(key: string): Promise<void> {
    await fs.rm(path.join(this.root, key), { force: true });
  }

  url(key: string, baseUrl: string): string {
    return `${baseUrl}/media/${key}`;
  }
}

/**
 * The AWS SDK is loaded on first use, not at start: importing it costs about half a second, which a service
 * storing files on disk (the default) should never pay.
 */
export class S3Storage implements Storage {
  readonly kind = 's3' as const;
  private sdk: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }> | null = null;

  constructor(private readonly config: Config) {}

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

  async put(folder: string, originalName: string, body: Buffer, contentType: string): Promise<string> {
    const key = newKey(folder, originalName);
    const { sdk, client } = await this.connect();
    await client.send(new sdk.PutObjectCommand({ Bucket: this.config.S3_BUCKET, Key: key, Body: body, ContentType: contentType }));
    return key;
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.S3_BUCKET, Key: key }));
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
