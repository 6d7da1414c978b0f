#!/bin/sh
# The worker's entrypoint: hand the worker a cgroup tree it may split into one group per seat, then run the given
# command (celery). With cgroup v2, processes may not sit in a group whose controllers are passed on to children,
# so the worker moves itself from the group it was started in (its delegated group: the container's own tree under
# docker-compose.yml's private cgroup namespace, or a systemd unit's group with Delegate=yes) into a leaf,
# `worker`, and enables memory, pids and cpu for that group's children: seats then go in `ludus/seat-N` beside it
# (workers/sandbox/cgroups.py finds this layout). With cgroup v1 there is nothing to do.
# Without a writable tree the worker still starts, and refuses uploaded bots saying why (or runs them without
# groups if LUDUS_SANDBOX_WITHOUT_CGROUPS=1).
set -eu
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
group="/sys/fs/cgroup${own%/}"
if [ -f "$group/cgroup.controllers" ] && [ -w "$group/cgroup.subtree_control" ]; then
  mkdir -p "$group/worker"
  echo $$ > "$group/worker/cgroup.procs"
  for controller in memory pids cpu; do
    echo "+$controller" > "$group/cgroup.subtree_control" || echo "worker-entrypoint: cannot enable $controller" >&2
  done
fi
exec "$@"
