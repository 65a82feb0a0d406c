import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { operations } from '../../src/registry.js';
import { GENERATED_PATH, renderClientTypes } from '../../scripts/client-types/render.js';

/**
 * The client package ships what is committed: its types generated from the operation table, and its JavaScript
 * compiled from its TypeScript (so `import '@hyperlocal/client'` works right after `npm install`, with no build step).
 * Both must match their sources; when they do not, `npm run client:build` writes them again.
 */
const CLIENT = path.resolve('client');

test('when the operation table or the pushed events change, then the committed client types are regenerated (npm run client:build)', () => {
  expect(fs.readFileSync(GENERATED_PATH, 'utf8')).toBe(renderClientTypes(operations));
});

test('when the client is compiled from its sources, then the result is what client/lib holds (npm run client:build)', () => {
  const configFile = ts.readConfigFile(path.join(CLIENT, 'tsconfig.json'), ts.sys.readFile);
  const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, CLIENT);
  const program = ts.createProgram(config.fileNames, config.options);
  const emitted = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => emitted.set(path.relative(path.join(CLIENT, 'lib'), file), text));
  expect(ts.getPreEmitDiagnostics(program).concat(result.diagnostics).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);

  const committed = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? committed(path.join(dir, e.name)) : [path.relative(path.join(CLIENT, 'lib'), path.join(dir, e.name))]));
  expect(committed(path.join(CLIENT, 'lib')).sort()).toEqual([...emitted.keys()].sort());
  for (const [file, text] of emitted) expect({ file, text: fs.readFileSync(path.join(CLIENT, 'lib', file), 'utf8') }).toEqual({ file, text });
}, 60_000);
