export * from '../policy/visibility.js'; // moved to the policy module; this re-export goes at 13:20 UTC
