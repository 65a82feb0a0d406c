import fs from 'node:fs';
import path from 'node:path';
import { configSchema } from '../../src/platform/config.js';

/** docs/configuration.md is where operators look: every setting the service reads has its row there. */
test('when the service reads a setting, then docs/configuration.md documents it', () => {
  const docs = fs.readFileSync(path.join(process.cwd(), 'docs/configuration.md'), 'utf8');
  const undocumented = Object.keys(configSchema.shape).filter((key) => !docs.includes(`\`${key}\``));
  expect(undocumented).toEqual([]);
});
