#!/usr/bin/env python3
"""
The CPU of a command and of every process under it, those a sandbox orphans included:
`python3 bench/reaped-cpu.py npx vitest run test/x.test.ts` prints one line to stderr at the end.

bwrap with a PID namespace (the sandbox's, the differential harness's) does not wait for the
namespace's first process: the outer bwrap exits once that process has written its exit status,
so what ran inside is reaped by init, and neither the test worker's children's CPU
(UBIQUITY_TEST_CPU_LOG, /proc/self/stat's cutime) nor `/usr/bin/time` counts it. Here the
command runs under a child subreaper (prctl PR_SET_CHILD_SUBREAPER, Linux): orphans are
reparented to it and reaped by it, so RUSAGE_CHILDREN holds them all. Wrap `/usr/bin/time -f
"%U %S"` inside it to see how much the usual figure misses. A process left running past the
command's end is waited for too (this exits when the last one has).
"""
import ctypes
import os
import resource
import sys

PR_SET_CHILD_SUBREAPER = 36
if len(sys.argv) < 2:
    sys.exit(__doc__)
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed: Linux only")
child = os.fork()
if child == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
status = 1
while True:
    try:
        pid, wait_status = os.wait()
    except ChildProcessError:
        break
    if pid == child:
        status = os.waitstatus_to_exitcode(wait_status)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(
    f"reaped-cpu: user {usage.ru_utime:.2f} s, sys {usage.ru_stime:.2f} s, "
    f"total {usage.ru_utime + usage.ru_stime:.2f} CPU-s\n"
)
sys.exit(status)
