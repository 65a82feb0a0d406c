import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/**
 * The client guide's examples compile against the generated types (issue 34): each ```js block of docs/client.md is
 * type-checked as TypeScript with `@hyperlocal/client` resolved to client/src, so an answer typed `unknown`, an
 * operation or event renamed, or an input the table no longer takes fails here. What the blocks leave to the app
 * (its handlers, its storage, the place it watches) is declared around them.
 */
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const guide = fs.readFileSync(path.join(root, 'docs/client.md'), 'utf8');
const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

const APP_SIDE = `
import { createClient } from '@hyperlocal/client';
import type { Post, StorageLike } from '@hyperlocal/client';
declare const baseUrl: string;
declare const storage: StorageLike;
declare const username: string;
declare const password: string;
declare const placeId: string;
declare function showPost(post: Post): void;
declare function removePost(id: string): void;
declare function showMessage(message: { id: string; content: string }): void;
declare function showNotification(notification: { id: string }): void;
declare function showSignIn(): void;
declare function reloadEverything(): void;
`;

function typeErrors(source: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-guide-'));
  const file = path.join(dir, 'example.ts');
  // Each block is a module of its own; the first block imports createClient itself.
  fs.writeFileSync(file, `${source.includes("from '@hyperlocal/client'") ? APP_SIDE.replace(/^import \{ createClient \}.*$/m, '') : APP_SIDE}\n${source}\nexport {};\n`);
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    baseUrl: root,
    paths: { '@hyperlocal/client': ['client/src/index.ts'] },
    allowImportingTsExtensions: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file);
  fs.rmSync(dir, { recursive: true, force: true });
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test('when the guide is read, then it holds the examples this test checks', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  expect(blocks.join('\n')).toContain("client.call('users.profile')");
});

test.each(blocks.map((block, i) => [i + 1, block]))('when example %i of docs/client.md is type-checked against the generated types, then it compiles', (_i, block) => {
  expect(typeErrors(block as string)).toEqual([]);
});

test('when an example reads an answer the types do not have, then the check fails (it is not vacuous)', () => {
  const wrong = "const client = createClient({ baseUrl });\nconst me = await client.call('users.profile');\nme.no_such_field.toUpperCase();";
  expect(typeErrors(wrong).join('\n')).toMatch(/no_such_field/);
});
