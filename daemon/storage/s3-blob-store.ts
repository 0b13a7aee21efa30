// Blobs in an S3-compatible bucket (`--blobs s3://bucket/prefix`, DOCFIX_BLOBS), for deployments
// whose files should not live in PostgreSQL. Objects are named <prefix><tenant>/<document>/<sha256>.<ext>
// and written before any record points to them; a document's objects are deleted after the
// transaction that deletes its record commits (a crash in between leaves unreachable objects, never
// a record without its file). Endpoint, region and credentials come from the AWS SDK's usual
// environment (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, …).
// Checksums are computed only "when required" and paths are path-style, so non-AWS servers
// (MinIO, Ceph, Garage) accept the requests.
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { BlobBackend } from './pg-blob-store.ts';

export interface S3Location {
  bucket: string;
  prefix: string;
}

/** s3://bucket/some/prefix → { bucket, prefix: 'some/prefix/' }. */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`--blobs must be s3://BUCKET[/PREFIX], not ${url}`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: m[1], prefix: prefix ? `${prefix}/` : '' };
}

function notFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export class S3BlobBackend implements BlobBackend {
  private client: S3Client;
  private where: S3Location;

  constructor(url: string, client?: S3Client) {
    this.where = parseS3Url(url);
    this.client =
      client ??
      new S3Client({
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
  }

  private key(tenantId: string, documentId: string, sha256?: string, ext?: string): string {
    const folder = `${this.where.prefix}${tenantId}/${documentId}/`;
    return sha256 ? `${folder}${sha256}.${ext}` : folder;
  }

  async put(
    tenantId: string,
    documentId: string,
    sha256: string,
    ext: string,
    bytes: Uint8Array,
  ): Promise<void> {
    if (await this.has(tenantId, documentId, sha256, ext)) return;
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.where.bucket,
        Key: this.key(tenantId, documentId, sha256, ext),
        Body: bytes,
        ContentType: ext === 'pdf' ? 'application/pdf' : 'application/octet-stream',
      }),
    );
  }

  async get(tenantId: string, documentId: string, sha256: string, ext: string): Promise<Uint8Array | null> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.where.bucket, Key: this.key(tenantId, documentId, sha256, ext) }),
      );
      return out.Body ? await out.Body.transformToByteArray() : null;
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  }

  async has(tenantId: string, documentId: string, sha256: string, ext: string): Promise<boolean> {
    try {
      await this.client.send(
        new HeadObjectCommand({
          Bucket: this.where.bucket,
          Key: this.key(tenantId, documentId, sha256, ext),
        }),
      );
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  removeDocument = async (_c: unknown, tenantId: string, documentId: string) => async () => {
    const Prefix = this.key(tenantId, documentId);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.where.bucket, Prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length)
        await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.where.bucket, Delete: { Objects: keys, Quiet: true } }),
        );
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  };
}
