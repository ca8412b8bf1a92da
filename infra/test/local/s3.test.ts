import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { freePort } from '../../local/ports.js';
import { MEDIA_BUCKET, startSqsS3 } from '../../local/sqs-s3.js';
import { endpoints, stackEnv, uniq } from '../support/index.js';

const s3For = (endpoint: string) =>
  new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

describe('local S3', () => {
  it('takes a browser upload by presigned PUT from the console origin', async () => {
    const env = stackEnv();
    const s3 = s3For(env.S3_ENDPOINT);
    const key = `test/${uniq()}.png`;
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: env.MEDIA_BUCKET, Key: key, ContentType: 'image/png' }), { expiresIn: 300 });
    const origin = endpoints().webUrl;
    const pre = await fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });
    expect(pre.ok).toBe(true);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT');
    const put = await fetch(url, { method: 'PUT', headers: { origin, 'content-type': 'image/png' }, body: new Uint8Array([1, 2, 3]) });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe(origin);
    const got = await s3.send(new GetObjectCommand({ Bucket: env.MEDIA_BUCKET, Key: key }));
    expect([...(await got.Body!.transformToByteArray())]).toEqual([1, 2, 3]);
    expect(got.ContentType).toBe('image/png');
    s3.destroy();
  });

  it('keeps stored objects across a restart of the S3 service', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-s3-'));
    try {
      const first = await startSqsS3({ dataDir, port: await freePort(), log: () => {}, allowOrigin: () => false });
      let s3 = s3For(first.endpoint);
      await s3.send(new PutObjectCommand({ Bucket: MEDIA_BUCKET, Key: 'a/b c.txt', Body: 'olá', ContentType: 'text/plain', Metadata: { who: 'me' } }));
      s3.destroy();
      await first.stop();
      const second = await startSqsS3({ dataDir, port: await freePort(), log: () => {}, allowOrigin: () => false });
      s3 = s3For(second.endpoint);
      const got = await s3.send(new GetObjectCommand({ Bucket: MEDIA_BUCKET, Key: 'a/b c.txt' }));
      expect(await got.Body!.transformToString()).toBe('olá');
      expect(got.ContentType).toBe('text/plain');
      expect(got.Metadata).toEqual({ who: 'me' });
      s3.destroy();
      await second.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
