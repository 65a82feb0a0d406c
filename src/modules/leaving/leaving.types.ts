export * from '../../core/leaving.js'; // moved next to core (the contract every module implements); this re-export goes at 13:20 UTC
