"""Reports the CPUs it and its sandbox's init (bwrap, pid 1 of its pid namespace) may run on, then plays well."""
import os
import sys

import ludus


def allowed(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    return "?"


print("affinity: " + ",".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0))), file=sys.stderr, flush=True)
print("allowed self: " + allowed("self"), file=sys.stderr, flush=True)
print("allowed init: " + allowed(1), file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
