export * from '../../core/export-paging.js'; // moved next to core; this re-export goes at 13:20 UTC
