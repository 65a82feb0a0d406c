import fs from 'node:fs';
import path from 'node:path';
import { configSchema, loadConfig } from '../../src/platform/config.js';
import { configuredLimitsTable } from '../../scripts/limits-table.js';

/** docs/configuration.md is where operators look: every setting the service reads has its row there. */
test('when the service reads a setting, then docs/configuration.md documents it', () => {
  const docs = fs.readFileSync(path.join(process.cwd(), 'docs/configuration.md'), 'utf8');
  const undocumented = Object.keys(configSchema.shape).filter((key) => !docs.includes(`\`${key}\``));
  expect(undocumented).toEqual([]);
});

/** docs/limits.md's table is generated (`npm run limits:table`): a new or changed operation regenerates it. */
test('when the registry and the default settings are read, then docs/limits.md holds their limits table as generated', () => {
  const docs = fs.readFileSync(path.join(process.cwd(), 'docs/limits.md'), 'utf8');
  const table = configuredLimitsTable(loadConfig({}));
  expect(docs).toContain(table.trim());
});
