/**
 * JSON Schema (as zod's toJSONSchema writes it for the OpenAPI document) to a TypeScript type expression.
 * Only what that document uses: $ref to components, anyOf/oneOf/allOf, const, enum, type lists, objects with
 * properties or additionalProperties, arrays. Anything it cannot express (a preprocessed input: `{}`) is `unknown`,
 * never a guess.
 */
export type JsonSchema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export const propertyKey = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A component name as a TypeScript identifier (`#/components/schemas/Post` → `Post`). */
export const typeName = (component: string): string => component.replace(/[^\w$]/g, '_').replace(/^(\d)/, '_$1');

export function toTs(schema: unknown, indent = ''): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  const s = schema as JsonSchema;
  if (typeof s.$ref === 'string') return typeName(s.$ref.replace(/^#\/(components\/schemas|\$defs)\//, ''));
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (alternatives) return union(alternatives.map((a) => toTs(a, indent)));
  if (Array.isArray(s.allOf)) return s.allOf.map((a) => wrap(toTs(a, indent))).join(' & ') || 'unknown';
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : null;
  if (!types) return s.properties ? objectType(s, indent) : 'unknown';
  return union(types.map((t) => single(t, s, indent)));
}

function single(type: string, s: JsonSchema, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      // A tuple (`z.tuple`): JSON Schema 2020-12 lists its members in prefixItems.
      if (Array.isArray(s.prefixItems)) return `[${(s.prefixItems as JsonSchema[]).map((item) => toTs(item, indent)).join(', ')}]`;
      return `Array<${toTs(s.items, indent)}>`;
    case 'object':
      return objectType(s, indent);
    default:
      return 'unknown';
  }
}

/** An object with known properties; a record when only additionalProperties (or propertyNames) describe it. */
export function objectType(s: JsonSchema, indent: string): string {
  const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
  const names = Object.keys(properties);
  const extra = s.additionalProperties;
  if (!names.length) {
    const value = extra && typeof extra === 'object' ? toTs(extra, indent) : 'unknown';
    return `Record<string, ${value}>`;
  }
  const required = new Set((s.required ?? []) as string[]);
  const inner = indent + '  ';
  const lines = names.map((name) => {
    const doc = typeof properties[name].description === 'string' ? `${inner}/** ${comment(properties[name].description as string)} */\n` : '';
    return `${doc}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${toTs(properties[name], inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** Text safe inside a JSDoc comment on one line. */
export const comment = (text: string): string => text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ');

function union(members: string[]): string {
  const unique = [...new Set(members)];
  // `unknown | null` is unknown: one member that says nothing makes the whole union say nothing.
  if (unique.includes('unknown')) return 'unknown';
  return unique.length ? unique.join(' | ') : 'never';
}

const wrap = (t: string) => (/[|&]/.test(t) && !t.startsWith('{') ? `(${t})` : t);
