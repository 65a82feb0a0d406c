/**
 * `npm run client:types`: writes the client's generated types and routes (client/src/generated/api.ts) from the
 * operation table and the pushed events. tests/unit/client-generated.test.ts fails when the committed file is
 * older than the table; `npm run client:build` then compiles the client.
 */
import fs from 'node:fs';
import { operations } from '../src/registry.js';
import { GENERATED_PATH, renderClientTypes } from './client-types/render.js';

const text = renderClientTypes(operations);
const before = fs.existsSync(GENERATED_PATH) ? fs.readFileSync(GENERATED_PATH, 'utf8') : null;
if (before === text) {
  console.log(`${GENERATED_PATH} is up to date`);
} else {
  fs.mkdirSync(GENERATED_PATH.replace(/\/[^/]+$/, ''), { recursive: true });
  fs.writeFileSync(GENERATED_PATH, text);
  console.log(`wrote ${GENERATED_PATH}`);
}
