"""Runs a command as a subreaper that never reaps, so that its processes stay zombies once killed.

What a supervisor that reaps late (or never) does to a service's processes after `kill -9`: the killed database
process keeps its pid, in state Z, while the service is started again. On a host whose init reaps orphans at
once, a test could not see that case otherwise. Linux only (prctl PR_SET_CHILD_SUBREAPER); python3 is there
wherever this project installs (node-gyp needs it to build argon2).

Usage: python3 zombie-keeper.py COMMAND [ARGS...]
The command runs as the leader of a process group of its own and prints its pid as its first line; this
process waits, reaping nothing, until it is killed.
"""
import ctypes
import os
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36

libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: errno {ctypes.get_errno()}")

pid = os.fork()
if pid == 0:
    os.setsid()
    os.write(1, f"{os.getpid()}\n".encode())
    os.execvp(sys.argv[1], sys.argv[1:])

while True:
    signal.pause()
