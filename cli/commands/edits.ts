// Corrections: propose (changes nothing) and apply (propose, show, confirm, apply, verify).
import { Option, type Command } from 'commander';
import type { ApiClient } from '../../src/api-client.ts';
import { EXIT } from '../../src/errors.ts';
import type { EditRequest, ProposalOut, VerificationOut } from '../../src/schemas.ts';
import {
  c,
  CliExit,
  dispatch,
  getClient,
  globalOptions,
  info,
  intArg,
  isColor,
  printJson,
  UsageError,
  withSpinner,
  type GlobalOptions,
} from '../context.ts';
import { maxCostAdvice, refusalLines } from '../refusal-text.ts';
import { COSTS, proposalLines, verificationLines, withinCost, type Cost } from '../render.ts';
import { confirm, LANG_HELP, resolveDocumentId } from '../shared.ts';
import {
  addMatchFlags,
  locateText,
  matchFlags,
  MATCH_RULE_HELP,
  targetLine,
  TextNotFound,
  type MatchFlags,
} from '../text-match.ts';

export interface EditOptions {
  globals: GlobalOptions;
  document: string;
  find: string;
  replace: string;
  /** Only this page (0-based); default the whole document (OCR: page 0). */
  page?: number;
  /** Which match, numbered as `search` numbers them (on --page when given). */
  match: number;
  flags: MatchFlags;
  fontAttempt: number;
  ocr: boolean;
  /** --lang (with --ocr): the recognition language; default the page's own. */
  lang?: string;
  attestation?: string;
}
export interface ApplyOptions extends EditOptions {
  yes: boolean;
  maxCost: Cost;
  /** Show the Ink view on a TTY (default) or a plain prompt. */
  interactive: boolean;
}

interface RawEdit {
  find?: string;
  replace?: string;
  page?: number;
  match: number;
  ignoreCase?: boolean;
  word?: boolean;
  fontAttempt: number;
  ocr?: boolean;
  lang?: string;
  attestation?: string;
}

function addEditFlags(cmd: Command): Command {
  cmd
    .argument('<document>', 'document id, or a unique prefix of it')
    .requiredOption('--find <old>', 'the text to replace')
    .requiredOption('--replace <new>', 'the replacement text, used as given ("" deletes)')
    .addOption(
      new Option('--page <index>', 'only this page (0 for the first); default: the whole document').argParser(
        intArg('--page'),
      ),
    )
    .addOption(
      new Option('--match <n>', 'which match, numbered as `docfix search` numbers them (0 for the first)')
        .default(0)
        .argParser(intArg('--match')),
    );
  return addMatchFlags(cmd)
    .addOption(
      new Option('--font-attempt <n>', 'try the next matched font (see font alternatives)')
        .default(0)
        .argParser(intArg('--font-attempt')),
    )
    .option('--ocr', 'find the text by recognising the pixels (scanned pages)')
    .option('--lang <code>', `with --ocr: ${LANG_HELP}`)
    .option('--attestation <id>', 'use this attestation (default: record a new one)');
}

function editOptions(document: string, o: RawEdit, cmd: Command): EditOptions {
  if (!o.find) throw new UsageError('--find must not be empty');
  if (o.lang && !o.ocr) throw new UsageError('--lang is the recognition language: only with --ocr');
  return {
    globals: globalOptions(cmd),
    document,
    find: o.find,
    replace: o.replace ?? '',
    ...(o.page !== undefined ? { page: o.page } : {}),
    match: o.match,
    flags: matchFlags(o),
    fontAttempt: o.fontAttempt,
    ocr: Boolean(o.ocr),
    ...(o.lang ? { lang: o.lang } : {}),
    ...(o.attestation ? { attestation: o.attestation } : {}),
  };
}

export function register(program: Command): void {
  addEditFlags(
    program
      .command('propose')
      .description('Propose a correction and show what would happen; changes nothing'),
  )
    .addHelpText(
      'after',
      `
The text is looked for in every page, in reading order, as \`docfix search\` finds it: --match N
takes match N of the document (of the page with --page). Exits 5 when the engine refuses or the
text is not there (the message names the pages where it is); a refusal prints a headline and a try:
line that say what would help (--verbose adds the advice).
${MATCH_RULE_HELP}

Examples:
  $ docfix propose 3f2a --find Jonh --replace John
  $ docfix propose 3f2a --find anybody --replace everybody --ignore-case --word
  $ docfix propose 3f2a --find 2024 --replace 2025 --page 1 --match 2 --json
  $ docfix propose 3f2a --ocr --lang rus --page 0 --find работе --replace заботе`,
    )
    .action(async (document: string, o: RawEdit, cmd: Command) => {
      await dispatch('propose', editOptions(document, o, cmd), runPropose);
    });

  addEditFlags(
    program
      .command('apply')
      .description('Propose a correction, confirm it, apply it and show the verification'),
  )
    .option('-y, --yes', 'apply without asking')
    .addOption(
      new Option('--max-cost <cost>', 'refuse proposals more visible than this')
        .choices([...COSTS])
        .default('visible'),
    )
    .option('--no-interactive', 'a plain prompt instead of the terminal view')
    .addHelpText(
      'after',
      `
The text is found as for \`docfix propose\` (the whole document unless --page; --match numbered as
\`docfix search\` numbers matches). On a terminal it asks before applying unless --yes. Exits 5 when
refused or not found, 6 when verification fails.
${MATCH_RULE_HELP}

Examples:
  $ docfix apply 3f2a --find Jonh --replace John
  $ docfix apply 3f2a --find Jonh --replace John --yes --max-cost none
  $ docfix apply 3f2a --ocr --lang rus --page 0 --find работе --replace заботе`,
    )
    .action(
      async (document: string, o: RawEdit & { yes?: boolean; maxCost: Cost; interactive: boolean }, cmd) => {
        const options: ApplyOptions = {
          ...editOptions(document, o, cmd as Command),
          yes: Boolean(o.yes),
          maxCost: o.maxCost,
          interactive: o.interactive !== false,
        };
        await dispatch('apply', options, runApply);
      },
    );
}

/** Where the correction goes: a text-layer hit as search found it, or a page and match for OCR. */
interface Located {
  page: number;
  find: string;
  matchIndex: number;
  /**
   * Search found nothing on the page asked: the engine is asked all the same (it also reads the
   * fonts' own codes where MuPDF's text has nothing), and this error stands if it finds nothing.
   */
  unfound?: TextNotFound;
}

export function editRequest(o: EditOptions, at: Located, attestationId: string): EditRequest {
  return {
    page_index: at.page,
    target: o.ocr
      ? { method: 'ocr', find: at.find, match_index: at.matchIndex, ...(o.lang ? { lang: o.lang } : {}) }
      : { method: 'text_layer', find: at.find, match_index: at.matchIndex },
    replacement: o.replace,
    attestation_id: attestationId,
    font_attempt: o.fontAttempt,
  };
}

/**
 * The text layer's target is found through the document's search (cli/text-match.ts), so --match
 * numbers matches as `search` does; OCR recognises one page (--page, default 0) and counts there.
 */
async function locate(client: ApiClient, id: string, o: EditOptions): Promise<Located> {
  if (o.ocr) {
    if (o.flags.ignoreCase || o.flags.word)
      throw new UsageError('--ignore-case and --word match the text layer; not with --ocr');
    return { page: o.page ?? 0, find: o.find, matchIndex: o.match };
  }
  const request = {
    find: o.find,
    flags: o.flags,
    match: o.match,
    ...(o.page !== undefined ? { page: o.page } : {}),
  };
  let hit;
  try {
    hit = await locateText(client, id, request);
  } catch (error) {
    const exact = !o.flags.ignoreCase && !o.flags.word;
    if (!(error instanceof TextNotFound && error.absent && exact && o.page !== undefined)) throw error;
    return { page: o.page, find: o.find, matchIndex: o.match, unfound: error };
  }
  info(c.dim(targetLine(hit, request)));
  return { page: hit.page_index, find: hit.text, matchIndex: hit.match_index ?? 0 };
}

/**
 * The engine did not find it either: the search's error, which says where the text is, with the
 * engine's own reason when it knows more (a font it cannot read, an annotation's text).
 */
function checkFound(at: Located, proposal: ProposalOut): void {
  if (!at.unfound || proposal.advice?.code !== 'text_not_found') return;
  const what = proposal.advice.what;
  if (what && !/is not in the text layer of this page/u.test(what))
    throw new TextNotFound(`${at.unfound.message}\n  engine: ${what}`, true);
  throw at.unfound;
}

async function prepare(
  o: EditOptions,
): Promise<{ client: ApiClient; id: string; request: EditRequest; at: Located }> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const at = await locate(client, id, o);
  const attestation =
    o.attestation ?? (await client.call('createAttestation', { body: { document_id: id } })).attestation_id;
  return { client, id, request: editRequest(o, at, attestation), at };
}

async function propose(client: ApiClient, id: string, request: EditRequest): Promise<ProposalOut> {
  return withSpinner(
    'Proposing',
    client.call('proposeEdit', { params: { document_id: id }, body: request, retry: true }),
  );
}

const printing = (o: EditOptions) => ({ verbose: o.globals.verbose, document: o.document, ocr: o.ocr });

export async function runPropose(o: EditOptions): Promise<void> {
  const { client, id, request, at } = await prepare(o);
  const proposal = await propose(client, id, request);
  checkFound(at, proposal);
  if (o.globals.json) printJson(proposal);
  else
    for (const line of proposalLines(proposal, { find: at.find, replacement: o.replace }, printing(o)))
      info(line);
  if (proposal.refusal) throw new CliExit(EXIT.refused);
}

/**
 * OCR matches that are uncertain need a person to look at a magnified crop of them: on a terminal,
 * fetch the crop above the recognition resolution (the engine records that it was served), show it,
 * and ask. Without a terminal nothing is confirmed and the engine explains its refusal.
 */
async function confirmOcrMatch(
  client: ApiClient,
  id: string,
  o: ApplyOptions,
  request: EditRequest,
  at: Located,
): Promise<void> {
  const tty = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  if (!tty || o.globals.json || request.target.method !== 'ocr') return;
  const ocr = await withSpinner(
    'Recognising',
    client.call('ocrPage', {
      params: { document_id: id, page_index: at.page },
      body: { find: o.find, ...(o.lang ? { lang: o.lang } : {}) },
      retry: true,
    }),
  );
  const match = ocr.matches?.find((m) => m.index === o.match) ?? ocr.matches?.[o.match];
  if (!match?.needs_confirmation) return;
  // Crops are asked in 300-dpi working pixels; the match's box is at the recognition's resolution.
  const s = 300 / ocr.render_dpi;
  const [x0, y0, x1, y1] = [
    Math.floor(match.box_render[0] * s),
    Math.floor(match.box_render[1] * s),
    Math.ceil(match.box_render[2] * s),
    Math.ceil(match.box_render[3] * s),
  ];
  const pad = Math.max(8, Math.round((y1 - y0) / 2));
  const x = Math.max(0, x0 - pad);
  const y = Math.max(0, y0 - pad);
  const png = await client.call('pageCrop', {
    params: { document_id: id, page_index: at.page },
    query: { x, y, w: x1 - x0 + 2 * pad, h: y1 - y0 + 2 * pad, dpi: Math.max(600, ocr.render_dpi * 2) },
    retry: true,
  });
  const { pngToLines } = await import('../tui/apply-view.ts');
  info(
    `Recognised "${match.text}" with confidence ${match.confidence.toFixed(0)}${match.competing ? `, ${match.competing} similar` : ''}:`,
  );
  for (const line of pngToLines(Buffer.from(png), Math.min(process.stderr.columns || 80, 100), isColor()))
    info(line);
  if (await confirm(`Does the crop above read "${o.find}"?`)) {
    request.target = { ...request.target, confirmed: true };
  }
}

export async function runApply(o: ApplyOptions): Promise<void> {
  const { client, id, request, at } = await prepare(o);
  await confirmOcrMatch(client, id, o, request, at);
  const proposal = await propose(client, id, request);
  checkFound(at, proposal);
  const show = () => {
    if (!o.globals.json)
      for (const line of proposalLines(proposal, { find: at.find, replacement: o.replace }, printing(o)))
        info(line);
  };
  const refuse = () => {
    if (o.globals.json) printJson({ proposal, verification: null });
    throw new CliExit(EXIT.refused);
  };
  if (proposal.refusal) {
    show();
    refuse();
  }
  if (!withinCost(proposal.visibility_cost, o.maxCost)) {
    show();
    if (!o.globals.json) {
      const label = `${c.red('Not applied')} "${o.find}" → "${o.replace}" on page ${proposal.page_index}`;
      const context = {
        advice: maxCostAdvice(proposal, o.maxCost),
        cost: proposal.visibility_cost,
        maxCost: o.maxCost,
      };
      for (const line of refusalLines(label, context, { verbose: o.globals.verbose })) info(line);
    }
    refuse();
  }
  const tty = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  if (!o.yes && tty && !o.globals.json) {
    let ok: boolean;
    if (o.interactive) {
      const { confirmWithView } = await import('../tui/apply-view.ts');
      ok = await confirmWithView(proposal, { find: at.find, replacement: o.replace });
    } else {
      show();
      ok = await confirm('Apply this correction?');
    }
    if (!ok) {
      info('Nothing changed.');
      throw new CliExit(EXIT.refused);
    }
  } else {
    show();
  }
  const verification: VerificationOut = await withSpinner(
    'Applying and verifying',
    client.call('applyEdit', {
      params: { document_id: id },
      body: { request, apply: { proposal_id: proposal.proposal_id, confirm_token: proposal.confirm_token } },
      retry: true,
    }),
  );
  if (o.globals.json) printJson({ proposal, verification });
  else for (const line of verificationLines(verification)) info(line);
  if (!verification.passed) throw new CliExit(EXIT.verification);
}
