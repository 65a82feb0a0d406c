import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The floors of src (DESIGN.md section 3, docs/architecture.md "Floors of src/modules"), as dependency-cruiser checks
 * them with .dependency-cruiser.cjs: core and platform import no module and no transport, modules import no
 * transport, http, realtime and jobs do not import each other, the policy module imports no domain, and no domain
 * folder of src/modules reaches itself through the imports of its files (type-only imports included). This test is
 * how `npm test`, `npm run check` and CI run it; `npx depcruise src` prints the same violations by hand.
 */
const ROOT = path.resolve('.');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const BIN = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  type?: string;
}

async function violations(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile);
  // Exit status 0 or the number of errors: the JSON on stdout says which, either way.
  const { stdout } = await run(process.execPath, [BIN, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }),
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const named = (list: Violation[]) => list.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

describe('dependency rules (dependency-cruiser)', () => {
  test('when src is cruised, then no rule is broken', async () => {
    expect(named(await violations(ROOT))).toEqual([]);
  }, 180_000);

  test('when a fixture holds a circle between two domain folders and two layer violations, then each is reported (the check itself works)', async () => {
    const found = named(await violations(path.join(ROOT, 'tests', 'fixtures', 'floors')));
    expect(found).toEqual(
      expect.arrayContaining([
        'core-imports-no-module-or-transport: src/core/house-rule.ts → src/modules/alpha/alpha.service.ts',
        'http-realtime-jobs-apart: src/http/route.ts → src/realtime/room.ts',
        'no-circle-between-domains: src/modules/alpha → src/modules/beta',
        'no-circle-between-domains: src/modules/beta → src/modules/alpha',
      ]),
    );
  }, 180_000);
});
