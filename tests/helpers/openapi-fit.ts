/**
 * Checks that a real answer fits the schema the OpenAPI document gives for it: every key of the body is
 * documented and every required key is present, recursively into lists and objects. `getDoc` returns the
 * document the test fetched (it is read when a check runs, so it may be loaded in a beforeAll).
 */
export function openApiFit(getDoc: () => any) {
  /** A schema with its `$ref` followed into components. */
  const resolve = (schema: any): any => (schema?.$ref ? resolve(getDoc().components.schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema);
  const successSchema = (path: string, method = 'get', status = 200) => resolve(getDoc().paths[path][method].responses[status].content['application/json'].schema);

  function expectBodyFits(schema: any, body: any, where: string): void {
    schema = resolve(schema);
    if (body === null || schema === undefined) return;
    if (schema.anyOf) return expectBodyFits(schema.anyOf.find((s: any) => resolve(s).type !== 'null'), body, where);
    if (schema.type === 'array') return body.forEach((item: unknown, i: number) => expectBodyFits(schema.items, item, `${where}[${i}]`));
    if (schema.type !== 'object' || !schema.properties) return;
    const undocumented = Object.keys(body).filter((k) => !(k in schema.properties));
    const missing = (schema.required ?? []).filter((k: string) => !(k in body));
    expect({ where, undocumented, missing }).toEqual({ where, undocumented: [], missing: [] });
    for (const [key, value] of Object.entries(body)) expectBodyFits(schema.properties[key], value, `${where}.${key}`);
  }

  return { resolve, successSchema, expectBodyFits };
}
