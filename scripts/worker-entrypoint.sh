#!/bin/sh
# The worker container's entrypoint: hand the worker a cgroup tree it may split into one group per seat, then run
# the given command (celery). docker-compose.yml runs the worker with a private cgroup namespace and a writable
# /sys/fs/cgroup, so the tree seen here is the container's own.
# - cgroup v2: processes may not sit in a group whose controllers are passed to children, so the worker moves
#   itself into a leaf, /worker, and enables memory, pids and cpu for the children of the root: seats then go in
#   /sys/fs/cgroup/ludus/seat-N beside it (workers/cgroups.py finds this layout).
# - cgroup v1: nothing to do; seats go in /sys/fs/cgroup/<controller>/ludus/seat-N.
# Without a writable tree the worker still starts, and refuses uploaded bots saying why (or runs them without
# groups if LUDUS_SANDBOX_WITHOUT_CGROUPS=1).
set -eu
root=/sys/fs/cgroup
if [ -f "$root/cgroup.controllers" ] && [ -w "$root/cgroup.subtree_control" ]; then
  mkdir -p "$root/worker"
  echo $$ > "$root/worker/cgroup.procs"
  for controller in memory pids cpu; do
    echo "+$controller" > "$root/cgroup.subtree_control" || echo "worker-entrypoint: cannot enable $controller" >&2
  done
fi
exec "$@"
