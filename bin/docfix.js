#!/usr/bin/env node
// The `docfix` executable: checks the Node version, then hands over to the CLI in cli/main.ts
// (dist/cli/main.js in an installed package; see entry.js).
import { checkNode, entry } from './entry.js';

checkNode();
const { main } = await import(entry('cli/main'));
await main(process.argv);
