// Writes completions/docfix.{bash,zsh,fish} from the command tree (npm: node scripts/completions.ts).
import { writeFile } from 'node:fs/promises';
import { completionScript, SHELLS } from '../cli/completion.ts';
import { buildProgram } from '../cli/main.ts';

for (const shell of SHELLS) {
  const path = new URL(`../completions/docfix.${shell}`, import.meta.url);
  await writeFile(path, completionScript(buildProgram(), shell));
  console.log(`wrote completions/docfix.${shell}`);
}
