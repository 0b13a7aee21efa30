#!/usr/bin/env node
// The `docfix` executable: checks the Node version, then hands over to the CLI in cli/main.ts
// (dist/cli/main.js in an installed package; see entry.js).
import { checkNode, entry, version } from './entry.js';

checkNode();
if (process.argv.length === 3 && process.argv[2] === '--version') {
  // Nothing to load for the version: it is package.json's.
  process.stdout.write(`${version}\n`);
} else {
  const { main } = await import(entry('cli/main'));
  await main(process.argv);
}
