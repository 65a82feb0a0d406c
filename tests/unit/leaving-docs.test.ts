import fs from 'node:fs';
import { EXPORT_SECTION_NAMES } from '../../src/modules/leaving/export.sections.js';

/**
 * docs/modules/leaving.md describes the export document that `GET /api/users/profile/export/` answers. It once said
 * that `reports` was always `[]` while the export filled it from the caller's reports: this keeps the page's example
 * document and its words in step with the sections the code exports (src/modules/leaving/export.sections.ts).
 */
const page = fs.readFileSync('docs/modules/leaving.md', 'utf8');
const exampleBlock = /### The export document\s+```json\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
const documentedKeys = [...exampleBlock.matchAll(/^\s*"([a-z_]+)":|,\s*"([a-z_]+)":/gm)].map((m) => m[1] ?? m[2]);

describe('docs/modules/leaving.md', () => {
  test("the example export document names exactly the export's sections, in the code's order", () => {
    const sections = documentedKeys.filter((k) => (EXPORT_SECTION_NAMES as readonly string[]).includes(k));
    expect(sections).toEqual([...EXPORT_SECTION_NAMES]);
  });

  test('no exported section is described as always empty', () => {
    for (const name of EXPORT_SECTION_NAMES) {
      expect(page).not.toMatch(new RegExp(`\`${name}\` is always \`\\[\\]\``));
    }
    expect(page).toMatch(/\*\*Reports\.\*\* `reports` holds every report the caller made/);
  });
});
