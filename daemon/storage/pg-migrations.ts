// The PostgreSQL schema, as numbered migrations applied in order (pg-database.ts). A released
// migration is never edited: a change of schema is a new entry at the end.
//
// Records are JSON rows (the same shapes as the filesystem's files, daemon/storage/records.ts);
// `json`, not `jsonb`, so a record reads back byte for byte as written. The relational columns are
// the ones the guarantees need: the documents' rows are locked by every change, revisions are unique
// per (document, correction seq) and per (document, parent, seq), audit entries per (tenant, seq),
// usage counted per (tenant, day) with the limit checked under that row's lock, and jobs claimed
// with FOR UPDATE SKIP LOCKED under a lease.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records, audit, usage, blobs, jobs',
    sql: `
      CREATE TABLE tenants (
        tenant_id text PRIMARY KEY,
        name text NOT NULL UNIQUE,
        created_at text NOT NULL,
        record json NOT NULL
      );
      CREATE TABLE api_keys (
        key_id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (tenant_id),
        created_at text NOT NULL,
        record json NOT NULL
      );
      CREATE TABLE documents (
        tenant_id text NOT NULL,
        document_id text NOT NULL,
        created_at text NOT NULL,
        record json NOT NULL,
        PRIMARY KEY (tenant_id, document_id)
      );
      CREATE INDEX documents_by_time ON documents (tenant_id, created_at DESC);
      -- One row per revision a record names. Two applies on one head would make two children of it
      -- with the same correction seq: the second insert fails, whatever a process believed.
      CREATE TABLE revisions (
        tenant_id text NOT NULL,
        document_id text NOT NULL,
        revision_id text NOT NULL,
        parent_revision_id text,
        correction_seq integer,
        blob_sha256 text NOT NULL,
        PRIMARY KEY (tenant_id, document_id, revision_id),
        UNIQUE (tenant_id, document_id, correction_seq),
        UNIQUE (tenant_id, document_id, parent_revision_id, correction_seq)
      );
      CREATE TABLE audit_entries (
        tenant_id text NOT NULL,
        seq bigint NOT NULL,
        entry_hash text NOT NULL,
        subject_id text NOT NULL,
        job_id text,
        line text NOT NULL,
        PRIMARY KEY (tenant_id, seq)
      );
      CREATE INDEX audit_by_job ON audit_entries (job_id) WHERE job_id IS NOT NULL;
      CREATE INDEX audit_by_subject ON audit_entries (tenant_id, subject_id, seq);
      CREATE TABLE usage_days (
        tenant_id text NOT NULL,
        day text NOT NULL,
        corrections integer NOT NULL DEFAULT 0,
        reserved integer NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant_id, day)
      );
      CREATE TABLE certificates (
        certificate_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        certificate_sha256 text NOT NULL,
        record json NOT NULL
      );
      CREATE INDEX certificates_by_sha256 ON certificates (certificate_sha256);
      -- Content-addressed files of a document, as in its folder on a filesystem: deleting the
      -- document deletes them. Absent when the files are in an S3 bucket.
      CREATE TABLE blobs (
        tenant_id text NOT NULL,
        document_id text NOT NULL,
        sha256 text NOT NULL,
        ext text NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (tenant_id, document_id, sha256, ext)
      );
      -- What every instance must share: the daemon secret, the certificate signing keys.
      CREATE TABLE settings (
        name text PRIMARY KEY,
        value json NOT NULL
      );
      CREATE TABLE jobs (
        job_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        kind text NOT NULL,
        status text NOT NULL,
        attempt integer NOT NULL DEFAULT 1,
        locked_by text,
        lease_until timestamptz,
        input json,
        job json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX jobs_running ON jobs (lease_until) WHERE status = 'running';
    `,
  },
  {
    version: 2,
    name: 'usage holds that expire',
    sql: `
      -- A place held for an apply under way is a row with an end, not a counter: the place of an
      -- instance killed mid-apply is given back when it ends, not at the end of the day.
      CREATE TABLE usage_holds (
        hold_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        day text NOT NULL,
        held_until timestamptz NOT NULL
      );
      CREATE INDEX usage_holds_by_day ON usage_holds (tenant_id, day);
      ALTER TABLE usage_days DROP COLUMN reserved;
    `,
  },
  {
    version: 3,
    name: 'blobs know when they were written',
    sql: `
      -- So that a file written for a document deleted meanwhile (an apply racing a delete) can be
      -- found and removed once no upload could still be on its way to naming it.
      ALTER TABLE blobs ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
    `,
  },
];
