// Writes docs/errors.md from the error table (src/errors.ts). `node scripts/error-docs.ts` rewrites
// the file; test/src/errors.test.ts fails when the file and the table disagree.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, ERRORS, EXIT } from '../src/errors.ts';

const exitName = Object.fromEntries(Object.entries(EXIT).map(([name, code]) => [code, name]));

export function errorDocs(): string {
  const rows = ERROR_CODES.map((code) => {
    const facts = ERRORS[code];
    return `| \`${code}\` | ${facts.status} | ${facts.meaning} | ${facts.exit} (${exitName[facts.exit]}) | ${facts.where === 'edge' ? 'top level' : '`detail`'} |`;
  });
  return [
    '# Error codes',
    '',
    'Generated from `src/errors.ts` by `node scripts/error-docs.ts`; a test keeps them in step.',
    'Every error is JSON with an `error` code and a `message`. Codes marked "top level" arrive as',
    '`{"error": …, "message": …}`; the others as `{"detail": {"error": …, "message": …}}`.',
    '`invalid_request` also carries `problems` (field and problem) and the HTTPValidationError `detail` array.',
    '',
    '| code | HTTP status | meaning | CLI exit code | where in the body |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '## CLI exit codes',
    '',
    '| exit code | name |',
    '|---|---|',
    ...Object.entries(EXIT).map(([name, code]) => `| ${code} | ${name} |`),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/errors.md', import.meta.url), errorDocs());
}
