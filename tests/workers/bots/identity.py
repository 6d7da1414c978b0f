"""Reports who and where it is (uid, gid, groups, environment, the root directory), then plays well."""
import json
import os
import sys

import ludus

print("identity: " + json.dumps({
    "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "env": dict(os.environ), "root": sorted(os.listdir("/")), "work": os.path.exists("/work"),
    "cwd": os.getcwd(), "files": sorted(os.listdir(".")),
}), file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
