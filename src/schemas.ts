// The one set of request/response schemas (spec Part 2). The daemon validates with them, the OpenAPI
// document is built from them and the API client takes its types from them (Static<…>).
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Box4 = Type.Array(Type.Integer(), { minItems: 4, maxItems: 4 });
const FreeObject = Type.Object({}, { additionalProperties: true });
const strict = { additionalProperties: false } as const;

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    message: Type.String(),
  },
  { additionalProperties: true, $id: 'ErrorBody' },
);
export const ErrorEnvelope = Type.Union([ErrorBody, Type.Object({ detail: ErrorBody })], {
  $id: 'ErrorEnvelope',
});

export const ValidationItem = Type.Object(
  { loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() },
  { $id: 'ValidationItem' },
);
export const HTTPValidationError = Type.Object(
  {
    detail: Type.Array(ValidationItem),
    error: Type.Literal('invalid_request'),
    message: Type.String(),
    problems: Type.Array(Type.Object({ field: Type.String(), problem: Type.String() })),
  },
  { $id: 'HTTPValidationError' },
);

export const PageKind = Type.Union(
  [
    Type.Literal('text'),
    Type.Literal('scanned'),
    Type.Literal('scanned_with_text_layer'),
    Type.Literal('mixed'),
  ],
  {
    description:
      'text: born-digital text; scanned: image only; scanned_with_text_layer: an image under an invisible OCR layer; mixed: both real text and large images',
  },
);

export const PageInfo = Type.Object(
  {
    index: Type.Integer({ minimum: 0 }),
    width_pt: Type.Number(),
    height_pt: Type.Number(),
    rotation: Type.Integer(),
    kind: Type.String(),
    char_count: Type.Integer(),
    image_count: Type.Integer(),
    image_coverage: Type.Number(),
    confidence: Type.Number(),
    natural_dpi: Type.Integer({ default: 300 }),
  },
  { $id: 'PageInfo' },
);

export const DocumentOut = Type.Object(
  {
    document_id: Type.String(),
    tenant_id: Type.String(),
    state: Type.String(),
    page_count: Type.Integer(),
    original_sha256: Type.String(),
    head_revision_id: Nullable(Type.String()),
    filename_hint: Type.String(),
    pages: Type.Optional(Type.Array(PageInfo)),
    issued_signals: Type.Optional(FreeObject),
    concerns: Type.Optional(Type.Array(Type.String())),
    protected: Type.Optional(Type.Boolean({ default: false })),
    unlocked: Type.Optional(Type.Boolean({ default: false })),
    watermarked: Type.Optional(Type.Boolean({ default: false })),
    created_at: DateTime,
  },
  { $id: 'DocumentOut' },
);

export const AttestationRequest = Type.Object(
  {
    document_id: Type.String({ minLength: 1 }),
    statement_version: Type.Optional(Type.String({ default: '2026-08-v1' })),
  },
  { ...strict, $id: 'AttestationRequest' },
);
export const AttestationOut = Type.Object(
  {
    attestation_id: Type.String(),
    statement_version: Type.String(),
    statement_text: Type.String(),
    created_at: DateTime,
  },
  { $id: 'AttestationOut' },
);

export const TextTarget = Type.Object(
  {
    method: Type.Literal('text_layer'),
    find: Type.String({ minLength: 1, maxLength: 200 }),
    match_index: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { ...strict, $id: 'TextTarget' },
);
export const OcrTarget = Type.Object(
  {
    method: Type.Literal('ocr'),
    find: Type.String({ minLength: 1, maxLength: 200 }),
    match_index: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    confirmed: Type.Optional(Type.Boolean({ default: false })),
    render_dpi: Type.Optional(Type.Integer({ minimum: 72, maximum: 1200, default: 300 })),
    lang: Type.Optional(Nullable(Type.String())),
  },
  { ...strict, $id: 'OcrTarget' },
);
export const VisualTarget = Type.Object(
  {
    method: Type.Literal('visual'),
    box_render: Box4,
    render_dpi: Type.Optional(Type.Integer({ minimum: 72, maximum: 1200, default: 300 })),
  },
  { ...strict, $id: 'VisualTarget' },
);
export const EditTarget = Type.Union([TextTarget, OcrTarget, VisualTarget], { $id: 'EditTarget' });

export const EditRequest = Type.Object(
  {
    page_index: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    target: EditTarget,
    replacement: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
    attestation_id: Type.String({ minLength: 1 }),
    font_attempt: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { ...strict, $id: 'EditRequest' },
);

export const ApplyRequest = Type.Object(
  { proposal_id: Type.String({ minLength: 1 }), confirm_token: Type.String({ minLength: 1 }) },
  { ...strict, $id: 'ApplyRequest' },
);
export const ApplyBody = Type.Object(
  { request: EditRequest, apply: ApplyRequest },
  { ...strict, $id: 'ApplyBody' },
);

export const RefusalAdvice = Type.Object(
  {
    code: Type.String({ default: '' }),
    what: Type.String({ default: '' }),
    why: Type.String({ default: '' }),
    do: Type.Array(Type.String()),
    worth_reporting: Type.Boolean({ default: false }),
  },
  { $id: 'RefusalAdvice' },
);
export const TierRejection = Type.Object(
  {
    tier: Type.Integer(),
    tier_name: Type.String(),
    code: Type.String(),
    reason: Type.String(),
    evidence: Type.Optional(FreeObject),
  },
  { $id: 'TierRejection' },
);
export const EditPreview = Type.Object(
  {
    box_render: Box4,
    render_dpi: Type.Integer(),
    before_png: Type.String({ contentEncoding: 'base64', contentMediaType: 'image/png' }),
    after_png: Type.String({ contentEncoding: 'base64', contentMediaType: 'image/png' }),
    complete: Type.Boolean({ default: true }),
  },
  { $id: 'EditPreview' },
);
export const PageDiff = Type.Object(
  {
    page_index: Type.Integer(),
    identical: Type.Boolean(),
    changed_pixels: Type.Integer(),
    changed_fraction: Type.Number(),
    bbox: Nullable(Type.Array(Type.Integer())),
    outside_pixels: Type.Integer(),
    max_delta: Type.Integer(),
    histogram: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  },
  { $id: 'PageDiff' },
);

export const ProposalOut = Type.Object(
  {
    proposal_id: Type.String(),
    confirm_token: Type.String(),
    document_id: Type.String(),
    page_index: Type.Integer(),
    tier: Type.Integer(),
    tier_name: Type.String(),
    visibility_cost: Type.String(),
    explanation: Type.String(),
    measurements: Type.Optional(FreeObject),
    warnings: Type.Optional(Type.Array(Type.String())),
    refusal: Type.Optional(Nullable(Type.String())),
    advice: Type.Optional(Nullable(RefusalAdvice)),
    rejected: Type.Optional(Type.Array(TierRejection)),
    predicted_diff: Type.Optional(Type.Array(PageDiff)),
    preview: Type.Optional(Nullable(EditPreview)),
    font_alternatives: Type.Optional(Type.Integer({ default: 0 })),
    font_attempt: Type.Optional(Type.Integer({ default: 0 })),
  },
  { $id: 'ProposalOut' },
);

export const VerificationPage = Type.Object(
  {
    page_index: Type.Integer(),
    identical: Type.Boolean(),
    proven_by: Type.String({
      description:
        'render: compared pixel by pixel; objects: content and resources unchanged object for object',
    }),
    changed_pixels: Type.Integer(),
    changed_fraction: Type.Number(),
    outside_pixels: Type.Integer(),
    max_delta: Type.Integer(),
    bbox: Nullable(Type.Array(Type.Integer())),
    declared_box: Nullable(Type.Array(Type.Integer())),
    histogram: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  },
  { additionalProperties: true, $id: 'VerificationPage' },
);
export const Guard = Type.Object(
  { name: Type.String(), passed: Type.Boolean(), detail: Type.String() },
  { additionalProperties: true, $id: 'Guard' },
);
export const VerificationOut = Type.Object(
  {
    verification_id: Type.String(),
    revision_id: Type.String(),
    output_sha256: Type.String(),
    dpi: Type.Integer(),
    passed: Type.Boolean(),
    failure_reason: Nullable(Type.String()),
    pages: Type.Array(VerificationPage),
    guards: Type.Array(Guard),
    stream_changes: FreeObject,
  },
  { $id: 'VerificationOut' },
);

export const CorrectionOut = Type.Object(
  {
    seq: Type.Integer(),
    page_index: Type.Integer(),
    box_render: Type.Optional(Nullable(Type.Array(Type.Integer()))),
    box_dpi: Type.Optional(Type.Integer({ default: 300 })),
    changed_render: Type.Optional(Nullable(Type.Array(Type.Integer()))),
    changed_dpi: Type.Optional(Type.Integer({ default: 300 })),
    text_before: Type.Optional(Nullable(Type.String())),
    text_after: Type.Optional(Nullable(Type.String())),
    visibility_cost: Type.Optional(Type.String({ default: 'none' })),
    verified: Type.Boolean(),
    failure_reason: Type.Optional(Nullable(Type.String())),
    outside_pixels: Type.Optional(Type.Integer({ default: 0 })),
    created_at: DateTime,
  },
  { $id: 'CorrectionOut' },
);

export const UndoOut = Type.Object(
  { document: DocumentOut, undone: CorrectionOut, corrections: Type.Optional(Type.Array(CorrectionOut)) },
  { $id: 'UndoOut' },
);

export const ExportOut = Type.Object(
  {
    revision_id: Type.String(),
    output_sha256: Type.String(),
    verification_id: Type.String(),
    marking_applied: Nullable(Type.String()),
    bytes_available: Type.Boolean({ default: true }),
  },
  { $id: 'ExportOut' },
);

export const CertificateRequest = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 200, default: '' })) },
  { ...strict, $id: 'CertificateRequest' },
);
export const CertificateOut = Type.Object(
  {
    certificate_id: Type.String(),
    document_id: Type.String(),
    issued_at: DateTime,
    original_sha256: Type.String(),
    corrected_sha256: Type.String(),
    certificate_sha256: Type.String(),
    corrections: Type.Integer(),
    key_id: Type.String(),
    pdf_available: Type.Boolean({ default: true }),
  },
  { $id: 'CertificateOut' },
);
export const CertificateStatus = Type.Union([
  Type.Literal('valid'),
  Type.Literal('invalid'),
  Type.Literal('altered'),
  Type.Literal('unknown'),
]);
export const CertificateCheckOut = Type.Object(
  {
    status: CertificateStatus,
    valid: Type.Boolean(),
    reason: Type.String(),
    algorithm: Type.Optional(Type.String({ default: 'Ed25519' })),
    certificate_id: Type.Optional(Nullable(Type.String())),
    issued_at: Type.Optional(Nullable(Type.String())),
    original_sha256: Type.Optional(Nullable(Type.String())),
    corrected_sha256: Type.Optional(Nullable(Type.String())),
    certificate_sha256: Type.Optional(Nullable(Type.String())),
    corrections: Type.Optional(Nullable(Type.Integer())),
    key_id: Type.Optional(Nullable(Type.String())),
    statement: Type.Optional(Nullable(FreeObject)),
    signature: Type.Optional(Nullable(Type.String())),
    seal: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'CertificateCheckOut' },
);
/** A face tier 4 may draw with (GET /v1/fonts). */
export const FontFace = Type.Object(
  {
    id: Type.String({ description: 'the id proposals name (matched_font.face) and font_attempt lists' }),
    family: Type.String(),
    style: Type.String(),
    postscript_name: Type.String(),
    origin: Type.Union([Type.Literal('bundled'), Type.Literal('system'), Type.Literal('font_dirs')], {
      description: 'bundled with docfix, found by fontconfig, or in a folder of DOCFIX_FONT_DIRS',
    }),
    file: Type.String({ description: "the font file on the daemon's machine" }),
    embedding: Type.Union(
      [Type.Literal('allowed'), Type.Literal('restricted'), Type.Literal('bitmap_only')],
      {
        description:
          "what the face's OS/2 fsType allows: restricted and bitmap-only faces are never embedded",
      },
    ),
    fs_type: Nullable(Type.Integer({ description: 'OS/2 fsType of a machine face' })),
  },
  { $id: 'FontFace' },
);
export const FontsOut = Type.Object(
  {
    system_fonts: Type.Boolean({ description: "fontconfig's faces are used (DOCFIX_SYSTEM_FONTS)" }),
    font_dirs: Type.Array(Type.String(), { description: 'folders of DOCFIX_FONT_DIRS' }),
    faces: Type.Array(FontFace),
  },
  { $id: 'FontsOut' },
);
export const CertificateKeyOut = Type.Object(
  {
    algorithm: Type.Literal('Ed25519'),
    key_id: Type.String(),
    public_key: Type.String({ description: 'raw 32-byte key, base64url' }),
    public_key_pem: Type.String(),
    previous: Type.Array(
      Type.Object({
        key_id: Type.String(),
        public_key: Type.String(),
        public_key_pem: Type.String(),
        retired_at: Type.String(),
      }),
    ),
  },
  { $id: 'CertificateKeyOut' },
);

const Turn = Type.Union([Type.Literal(0), Type.Literal(90), Type.Literal(180), Type.Literal(270)], {
  default: 0,
});
const WordSource = Type.Union(
  [Type.Literal('text_layer'), Type.Literal('recognised'), Type.Literal('measured'), Type.Literal('')],
  { default: '' },
);

export const OcrSearchRequest = Type.Object(
  {
    find: Type.Optional(Type.String({ default: '', maxLength: 200 })),
    box_render: Type.Optional(Nullable(Box4)),
    render_dpi: Type.Optional(Nullable(Type.Integer({ minimum: 72, maximum: 1200 }))),
    lang: Type.Optional(Nullable(Type.String())),
    turn: Type.Optional(Turn),
  },
  { ...strict, $id: 'OcrSearchRequest' },
);
export const OcrMatch = Type.Object(
  {
    index: Type.Integer(),
    text: Type.String(),
    confidence: Type.Number(),
    box_render: Type.Array(Type.Integer()),
    competing: Type.Integer(),
    needs_confirmation: Type.Boolean(),
  },
  { $id: 'OcrMatch' },
);
export const OcrWord = Type.Object(
  {
    text: Type.String(),
    confidence: Type.Number(),
    box_render: Type.Array(Type.Integer()),
    line: Type.Integer(),
  },
  { $id: 'OcrWord' },
);
export const OcrPageOut = Type.Object(
  {
    page_index: Type.Integer(),
    provider: Type.String(),
    lang: Type.String(),
    render_dpi: Type.Integer(),
    word_count: Type.Integer(),
    available: Type.Boolean(),
    message: Type.Optional(Type.String({ default: '' })),
    matches: Type.Optional(Type.Array(OcrMatch)),
    confirm_threshold: Type.Optional(Type.Number({ default: 85.0 })),
    selection_text: Type.Optional(Type.String({ default: '' })),
    selection_confidence: Type.Optional(Type.Number({ default: 0.0 })),
    word_source: Type.Optional(WordSource),
    words: Type.Optional(Type.Array(OcrWord)),
  },
  { $id: 'OcrPageOut' },
);

export const OcrLanguage = Type.Object(
  {
    code: Type.String({
      description: "tesseract's name of the language (eng, rus, chi_sim): the value of `lang`",
    }),
    source: Type.Union(
      [
        Type.Literal('configured'),
        Type.Literal('bundled'),
        Type.Literal('tessdata_prefix'),
        Type.Literal('system'),
      ],
      {
        description:
          "where its data comes from: a folder DOCFIX_TESSDATA_DIRS names, a bundled @tesseract.js-data package, TESSDATA_PREFIX, or the system's tessdata folders (Debian: tesseract-ocr-LANG)",
      },
    ),
    file: Type.String({ description: "the data file read (on the daemon's machine)" }),
  },
  { $id: 'OcrLanguage' },
);
export const OcrLanguagesOut = Type.Object(
  {
    languages: Type.Array(OcrLanguage),
    /** The folders looked in, in order of precedence (a language found in several is taken from the first). */
    folders: Type.Array(
      Type.Object({
        folder: Type.String(),
        source: Type.String(),
        exists: Type.Boolean(),
      }),
    ),
  },
  { $id: 'OcrLanguagesOut' },
);

export const PreflightRequest = Type.Object(
  {
    box_render: Type.Optional(Nullable(Box4)),
    render_dpi: Type.Optional(Nullable(Type.Integer({ minimum: 72, maximum: 1200 }))),
    lang: Type.Optional(Nullable(Type.String())),
    turn: Type.Optional(Turn),
  },
  { ...strict, $id: 'PreflightRequest' },
);
export const PreflightRegion = Type.Object(
  {
    box_render: Type.Array(Type.Integer()),
    code: Type.String(),
    what: Type.String(),
    why: Type.Optional(Type.String({ default: '' })),
    do: Type.Optional(Type.Array(Type.String())),
    evidence: Type.Optional(FreeObject),
    worth_reporting: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'PreflightRegion' },
);
export const PreflightOut = Type.Object(
  {
    page_index: Type.Integer(),
    render_dpi: Type.Integer(),
    word_source: Type.Optional(WordSource),
    checked: Type.Optional(Type.Integer({ default: 0 })),
    skipped: Type.Optional(Type.Integer({ default: 0 })),
    regions: Type.Optional(Type.Array(PreflightRegion)),
    applicable: Type.Optional(Type.Boolean({ default: true })),
    message: Type.Optional(Type.String({ default: '' })),
  },
  { $id: 'PreflightOut' },
);

export const SearchHit = Type.Object(
  {
    page_index: Type.Integer(),
    /** The characters as they stand on the page (with ignore_case, the page's capitals). */
    text: Type.String(),
    box_render: Type.Array(Type.Integer()),
    confidence: Type.Number(),
    /**
     * What a text_layer correction of exactly this hit sends: find = `text`, page_index, and this
     * match_index (exact occurrences of `text` on the page before this one, as the engine counts).
     */
    match_index: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The hit's box in points, [x0, y0, x1, y1], top-left origin of the page as displayed. */
    box: Type.Optional(Type.Array(Type.Number())),
    /** The rest of the hit's line before and after it (at most 80 characters each). */
    before: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
  },
  { $id: 'SearchHit' },
);
export const SearchOut = Type.Object(
  {
    query: Type.String(),
    matches: Type.Optional(Type.Array(SearchHit)),
    pages_searched: Type.Optional(Type.Array(Type.Integer())),
    pages_needing_recognition: Type.Optional(Type.Array(Type.Integer())),
    truncated: Type.Optional(Type.Boolean({ default: false })),
    /** Every match on the pages searched, listed or not: when not truncated, or when `count` was asked. */
    total: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The pages with at least one match, when `total` is given. */
    pages_matched: Type.Optional(Type.Array(Type.Integer())),
  },
  { $id: 'SearchOut' },
);

export const JobOut = Type.Object(
  {
    job_id: Type.String(),
    kind: Type.String(),
    status: Type.String(),
    progress: Type.Number(),
    stage: Type.Optional(Nullable(Type.String())),
    result: Type.Optional(FreeObject),
    last_error: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'JobOut' },
);

export const AuditEntryOut = Type.Object(
  {
    seq: Type.Integer(),
    ts: DateTime,
    actor_user_id: Nullable(Type.String()),
    actor_kind: Type.String(),
    action: Type.String(),
    subject_type: Type.String(),
    subject_id: Type.String(),
    payload: FreeObject,
    entry_hash: Type.String(),
  },
  { $id: 'AuditEntryOut' },
);
export const AuditChainOut = Type.Object(
  {
    intact: Type.Boolean(),
    entries: Type.Integer(),
    head_hash: Nullable(Type.String()),
    first_broken_seq: Nullable(Type.Integer()),
    reason: Nullable(Type.String()),
  },
  { $id: 'AuditChainOut' },
);

export const PlanFacts = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    kind: Type.String(),
    price_eur: Type.Number(),
    price_label: Type.String(),
    recurring: Type.Boolean(),
    downloads: Type.String(),
    upload_mb: Type.Integer(),
    pages: Type.Integer(),
    headroom: Type.Integer(),
    documents: Type.Optional(Nullable(Type.Integer())),
    corrections_per_day: Type.Optional(Nullable(Type.Integer())),
    unlimited_corrections_days: Type.Optional(Nullable(Type.Integer())),
    capabilities: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
    cancel_anytime: Type.Optional(Nullable(Type.Boolean())),
    sign_in_required: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'PlanFacts' },
);
export const PlansOut = Type.Object(
  {
    currency: Type.String(),
    prices_include_vat: Type.Boolean({ default: true }),
    capabilities: Type.Array(Type.String()),
    plans: Type.Array(PlanFacts),
  },
  { $id: 'PlansOut' },
);

export const Notice = Type.Object(
  { id: Type.String(), kind: Type.String(), text: Type.String(), at: Type.Optional(Nullable(Type.String())) },
  { $id: 'Notice' },
);
export const SubscriptionSummary = Type.Object(
  {
    plan: Type.String(),
    state: Type.String(),
    renews_on: Type.Optional(Nullable(Type.String())),
    ends_on: Type.Optional(Nullable(Type.String())),
    pending_plan: Type.Optional(Nullable(Type.String())),
    pending_on: Type.Optional(Nullable(Type.String())),
    interval: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'SubscriptionSummary' },
);
export const UsageOut = Type.Object(
  {
    limit: Type.Integer({ description: 'corrections a UTC day; -1 when unlimited' }),
    used: Type.Number(),
    remaining: Type.Number({ description: '-1 when unlimited' }),
    resets_on: Type.String(),
    checkout_open: Type.Boolean(),
    subscribed: Type.Optional(Type.Boolean({ default: false })),
    confirmation_sent: Type.Optional(Type.Boolean({ default: false })),
    signed_in_as: Type.Optional(Nullable(Type.String())),
    onboarded: Type.Optional(Type.Boolean({ default: false })),
    plan: Type.Optional(Nullable(Type.String())),
    entitlement: Type.Optional(FreeObject),
    upload_limit_mb: Type.Optional(Type.Integer({ default: 5, description: '-1 when unlimited' })),
    page_limit: Type.Optional(Type.Integer({ default: 100, description: '-1 when unlimited' })),
    retention_days: Type.Optional(Type.Integer({ default: 90 })),
    idp_sign_in: Type.Optional(Type.Boolean({ default: false })),
    operator: Type.Optional(Type.Boolean({ default: false })),
    operator_reauth_minutes: Type.Optional(Nullable(Type.Integer())),
    devices_signed_in: Type.Optional(Nullable(Type.Integer())),
    development: Type.Optional(Type.Boolean({ default: false })),
    controller: Type.Optional(Type.Record(Type.String(), Type.String())),
    billing: Type.Optional(Type.Record(Type.String(), Type.String())),
    mail_sign_in: Type.Optional(Type.Boolean({ default: false })),
    unlimited_until: Type.Optional(Nullable(Type.String())),
    bought_plans: Type.Optional(Type.Array(Type.String())),
    notices: Type.Optional(Type.Array(Notice)),
    subscription: Type.Optional(Nullable(SubscriptionSummary)),
    dismissed_hints: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'UsageOut' },
);

export const HealthOut = Type.Object(
  { ok: Type.Boolean(), version: Type.String(), engine_slots: Type.Integer(), uptime_s: Type.Number() },
  { additionalProperties: true, $id: 'HealthOut' },
);

export type DocumentOut = Static<typeof DocumentOut>;
export type PageInfo = Static<typeof PageInfo>;
export type EditRequest = Static<typeof EditRequest>;
export type ApplyBody = Static<typeof ApplyBody>;
export type ProposalOut = Static<typeof ProposalOut>;
export type RefusalAdvice = Static<typeof RefusalAdvice>;
export type TierRejection = Static<typeof TierRejection>;
export type PageDiff = Static<typeof PageDiff>;
export type VerificationOut = Static<typeof VerificationOut>;
export type CorrectionOut = Static<typeof CorrectionOut>;
export type UndoOut = Static<typeof UndoOut>;
export type ExportOut = Static<typeof ExportOut>;
export type CertificateOut = Static<typeof CertificateOut>;
export type CertificateCheckOut = Static<typeof CertificateCheckOut>;
export type CertificateKeyOut = Static<typeof CertificateKeyOut>;
export type FontsOut = Static<typeof FontsOut>;
export type OcrPageOut = Static<typeof OcrPageOut>;
export type OcrLanguagesOut = Static<typeof OcrLanguagesOut>;
export type PreflightOut = Static<typeof PreflightOut>;
export type SearchOut = Static<typeof SearchOut>;
export type SearchHit = Static<typeof SearchHit>;
export type JobOut = Static<typeof JobOut>;
export type AuditEntryOut = Static<typeof AuditEntryOut>;
export type AuditChainOut = Static<typeof AuditChainOut>;
export type PlansOut = Static<typeof PlansOut>;
export type PlanFacts = Static<typeof PlanFacts>;
export type UsageOut = Static<typeof UsageOut>;
export type AttestationOut = Static<typeof AttestationOut>;
