// Validates Kubernetes objects against the API's OpenAPI schemas, as packaged by kubernetes-models
// (and @kubernetes-models/prometheus-operator for ServiceMonitor and PodMonitor). Objects of a custom
// resource are checked against the openAPIV3Schema of the CRD given with them.
// stdin: {"objects": [{"name": ..., "object": {...}}], "crds": [{...CustomResourceDefinition...}]}
// stdout: one JSON line per object: {"name": ..., "ok": true} or {"name": ..., "ok": false, "error": ...}
const path = require('path');
const Ajv = require('ajv');

const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const customSchemas = new Map();

// A CRD's schema is OpenAPI 3.0 (draft-04 style): exclusiveMinimum is a flag next to minimum, and
// nullable widens the type. Ajv speaks draft-07, where the bound is the value itself.
// Unknown fields are errors, as kubectl's default strict field validation makes them (the API server would
// otherwise drop them silently): an object with properties allows no others unless the schema says so.
function toDraft7(schema) {
  if (Array.isArray(schema)) {
    schema.forEach(toDraft7);
  } else if (schema && typeof schema === 'object') {
    for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']]) {
      if (schema[flag] === true && schema[bound] !== undefined) {
        schema[flag] = schema[bound];
        delete schema[bound];
      } else if (typeof schema[flag] === 'boolean') {
        delete schema[flag];
      }
    }
    if (schema.nullable === true && typeof schema.type === 'string') {
      schema.type = [schema.type, 'null'];
    }
    if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined
        && !schema['x-kubernetes-preserve-unknown-fields']) {
      schema.additionalProperties = false;
    }
    Object.values(schema).forEach(toDraft7);
  }
  return schema;
}
const ajv = new Ajv({ strict: false, allErrors: true });
require('ajv-formats')(ajv); // date-time of conditions' lastTransitionTime
for (const crd of input.crds || []) {
  for (const v of crd.spec.versions) {
    const root = v.schema.openAPIV3Schema;
    // Every object has apiVersion and kind, whether the CRD's schema lists them or not.
    root.properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, ...root.properties };
    customSchemas.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, ajv.compile(toDraft7(root)));
  }
}

// import(), not require(): @kubernetes-models/prometheus-operator 6 is an ES module only.
async function modelFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [null, apiVersion];
  const base = group === 'monitoring.coreos.com' ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  const module = group ? `${base}/${group}/${version}/${kind}` : `${base}/${version}/${kind}`;
  return (await import(module))[kind];
}

async function main() {
  for (const { name, object } of input.objects) {
    try {
      const custom = customSchemas.get(`${object.apiVersion}/${object.kind}`);
      if (custom) {
        // The API server checks metadata itself; the CRD's schema covers spec and status.
        const { metadata, ...rest } = object;
        if (!custom({ ...rest })) {
          throw new Error(custom.errors.map(e => `data${e.instancePath} ${e.message}`
              + (e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : '')).join(', '));
        }
        if (!metadata || !metadata.name) {
          throw new Error('metadata.name is required');
        }
      } else {
        const Model = await modelFor(object.apiVersion, object.kind);
        if (!Model) {
          throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
        }
        new Model(object).validate();
      }
      console.log(JSON.stringify({ name, ok: true }));
    } catch (e) {
      console.log(JSON.stringify({ name, ok: false, error: String(e.message || e) }));
    }
  }
}

main();
