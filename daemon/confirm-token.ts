// Confirmation tokens of proposals (docs/corrections.md). A proposal is never stored; its token is an
// HMAC-SHA256 (key: the daemon secret) over everything the proposal depended on, so apply can tell
// whether anything changed since, without any state:
//
//   v1.<issued, base36 ms>.<head mac>.<full mac>
//
// head mac: tenant, document, head revision, canonical edit request, proposal id, issue time —
//           checked before the engine runs (a changed document or request is stale at once);
// full mac: the same plus the engine's fingerprint of the proposal and its tier — checked after the
//           engine recomputed the proposal (the engine would now do something else: stale).
// Both are compared in constant time. Tokens expire after TOKEN_TTL_MS.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalize } from '../src/canonical-json.ts';
import type { EditRequest } from '../src/schemas.ts';

export const TOKEN_TTL_MS = 60 * 60 * 1000;
const VERSION = 'v1';

export interface TokenBinding {
  tenant_id: string;
  document_id: string;
  /** The revision the proposal was made on (the original's revision id when nothing stands). */
  head_revision_id: string;
  request: EditRequest;
  proposal_id: string;
}

export interface EngineBinding {
  fingerprint: string;
  tier: number;
}

/** The edit request with every default filled in, so equal requests give equal bytes. */
export function canonicalRequest(request: EditRequest): string {
  const target = request.target;
  let t: Record<string, unknown>;
  if (target.method === 'text_layer') {
    t = { method: 'text_layer', find: target.find, match_index: target.match_index ?? 0 };
  } else if (target.method === 'ocr') {
    t = {
      method: 'ocr',
      find: target.find,
      match_index: target.match_index ?? 0,
      confirmed: target.confirmed ?? false,
      render_dpi: target.render_dpi ?? 300,
      lang: target.lang ?? null,
    };
  } else {
    t = { method: 'visual', box_render: [...target.box_render], render_dpi: target.render_dpi ?? 300 };
  }
  return canonicalize({
    page_index: request.page_index ?? 0,
    target: t,
    replacement: request.replacement ?? null,
    attestation_id: request.attestation_id,
    font_attempt: request.font_attempt ?? 0,
  });
}

function mac(secret: Buffer, label: string, parts: Record<string, unknown>): string {
  return createHmac('sha256', secret)
    .update(`docfix.confirm.${VERSION}.${label}\n`)
    .update(canonicalize(parts))
    .digest('base64url');
}

function headParts(b: TokenBinding, issued: string): Record<string, unknown> {
  return {
    tenant_id: b.tenant_id,
    document_id: b.document_id,
    head_revision_id: b.head_revision_id,
    request: canonicalRequest(b.request),
    proposal_id: b.proposal_id,
    issued,
  };
}

export function signConfirmToken(
  secret: Buffer,
  binding: TokenBinding,
  engine: EngineBinding,
  now = Date.now(),
): string {
  const issued = now.toString(36);
  const head = headParts(binding, issued);
  const headMac = mac(secret, 'head', head);
  const fullMac = mac(secret, 'full', { ...head, fingerprint: engine.fingerprint, tier: engine.tier });
  return `${VERSION}.${issued}.${headMac}.${fullMac}`;
}

export type TokenCheck = { ok: true } | { ok: false; reason: string };

interface ParsedToken {
  issued: string;
  headMac: string;
  fullMac: string;
}

function parse(token: string): ParsedToken | null {
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  const [, issued, headMac, fullMac] = parts;
  if (
    !/^[0-9a-z]{1,12}$/.test(issued) ||
    !/^[A-Za-z0-9_-]{43}$/.test(headMac) ||
    !/^[A-Za-z0-9_-]{43}$/.test(fullMac)
  ) {
    return null;
  }
  return { issued, headMac, fullMac };
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Before the engine runs: the token is well formed, fresh, and made for this head and request. */
export function checkTokenHead(
  secret: Buffer,
  token: string,
  binding: TokenBinding,
  now = Date.now(),
): TokenCheck {
  const parsed = parse(token);
  if (!parsed) return { ok: false, reason: 'The confirmation token is not one this service issued.' };
  const issuedAt = Number.parseInt(parsed.issued, 36);
  if (!Number.isSafeInteger(issuedAt) || issuedAt > now + 60_000) {
    return { ok: false, reason: 'The confirmation token is not one this service issued.' };
  }
  if (!same(parsed.headMac, mac(secret, 'head', headParts(binding, parsed.issued)))) {
    return {
      ok: false,
      reason:
        'The confirmation does not match: the document changed after the proposal, or the request is not the one proposed. Propose again.',
    };
  }
  if (now - issuedAt > TOKEN_TTL_MS) {
    return { ok: false, reason: 'The confirmation token expired (tokens last one hour). Propose again.' };
  }
  return { ok: true };
}

/** After the engine recomputed the proposal: it would do exactly what was proposed. */
export function checkTokenEngine(
  secret: Buffer,
  token: string,
  binding: TokenBinding,
  engine: EngineBinding,
): TokenCheck {
  const parsed = parse(token);
  if (!parsed) return { ok: false, reason: 'The confirmation token is not one this service issued.' };
  const expected = mac(secret, 'full', {
    ...headParts(binding, parsed.issued),
    fingerprint: engine.fingerprint,
    tier: engine.tier,
  });
  if (!same(parsed.fullMac, expected)) {
    return {
      ok: false,
      reason:
        'The engine would now make a different correction than the one proposed. Propose again and review it.',
    };
  }
  return { ok: true };
}
