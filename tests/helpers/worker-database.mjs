// Plain ESM: global setup and teardown (outside jest's module system) and every test file use it.

/**
 * When jest runs files in parallel, each worker has its own database, cloned by global setup from the migrated
 * one that TEST_DATABASE_URL names (the template): `<template>_w<JEST_WORKER_ID>`. A worker that jest recycles
 * (workerIdleMemoryLimit) keeps its JEST_WORKER_ID, so it comes back to the same database.
 */
export function workerDatabaseUrl(templateUrl, workerId) {
  const url = new URL(templateUrl);
  url.pathname = `/${workerDatabaseName(templateDatabaseName(templateUrl), workerId)}`;
  return url.toString();
}

export function templateDatabaseName(templateUrl) {
  return decodeURIComponent(new URL(templateUrl).pathname.replace(/^\//, '')) || 'postgres';
}

export function workerDatabaseName(templateName, workerId) {
  return `${templateName}_w${workerId}`;
}

/** An identifier for SQL text (CREATE/DROP DATABASE take no parameters). */
export function quoteIdent(name) {
  return `"${name.replace(/"/g, '""')}"`;
}
