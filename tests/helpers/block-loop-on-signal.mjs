// Test-only, never loaded by the service itself: tests/api/platform-watchdog.test.ts starts `node --import tsx
// --import ./tests/helpers/block-loop-on-signal.mjs src/main.ts`, then sends SIGUSR2 to block the event loop for
// good, as the tag stripper stuck on a hostile file once did (issue 31).
process.on('SIGUSR2', function spinForever() {
  for (;;);
});
