/**
 * The floors of src (DESIGN.md section 3; docs/architecture.md "Floors"), checked by dependency-cruiser:
 * `npx depcruise src` prints any violation, and tests/unit/dependency-rules.test.ts fails on one (so `npm test`,
 * `npm run check` and CI run it). Type-only imports count: a circle of types is a circle of knowledge.
 */
const DOMAIN = '^src/modules/[^/]+';
const TRANSPORT_PACKAGES = '^(express|socket\\.io|multer|cookie-parser|passport)(/|$)';
/** The files that assemble the service from every module and transport. */
const COMPOSITION = '^src/(registry|outbox-handlers|server|main)\\.ts$';
/** What the floors below the modules (core, platform) never import. */
const MODULES_AND_ABOVE = ['^src/(modules|http|realtime|jobs)/', COMPOSITION, TRANSPORT_PACKAGES];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-module-or-transport',
      comment: 'core is the house rules, below every module and every transport: it imports neither.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: MODULES_AND_ABOVE },
    },
    {
      name: 'platform-imports-no-module-or-transport',
      comment: 'platform connects to the outside world, below every module and every transport: it imports neither.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: MODULES_AND_ABOVE },
    },
    {
      name: 'modules-import-no-transport',
      comment: 'modules hold the rules; the transports (http, realtime) and the job runner call them, never the other way.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: ['^src/(http|realtime|jobs)/', COMPOSITION, TRANSPORT_PACKAGES] },
    },
    {
      name: 'http-realtime-jobs-apart',
      comment: 'http, realtime and jobs are thin doors onto the same operations and services: none imports another.',
      severity: 'error',
      from: { path: '^src/(http|realtime|jobs)/' },
      to: { path: '^src/(http|realtime|jobs)/', pathNot: '^src/$1/' },
    },
    {
      name: 'no-circle-between-domains',
      comment:
        'The domain folders of src/modules stand on one another in floors (docs/architecture.md): no folder reaches ' +
        'itself through the imports of its files. Move the shared piece down (policy, core) or turn the call into a domain event.',
      severity: 'error',
      scope: 'folder',
      from: { path: `${DOMAIN}$` },
      to: { path: `${DOMAIN}$`, circular: true },
    },
    {
      name: 'policy-imports-no-domain',
      comment: 'The visibility policy (src/modules/policy) stands below every domain that asks it: it imports none of them.',
      severity: 'error',
      from: { path: '^src/modules/policy/' },
      to: { path: '^src/modules/', pathNot: '^src/modules/policy/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
