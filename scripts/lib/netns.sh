# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Network namespaces for the scripts that put a server and its client on two sides of a real link.
# Source it after common.sh; callers run as root (CAP_NET_ADMIN) under `set -euo pipefail`.
#
#   spindle_netns_pair TAG     two namespaces, spindle-<TAG>-srv-<pid> and spindle-<TAG>-cli-<pid>,
#                              joined by a veth pair; sets SPINDLE_NETNS_SERVER/_CLIENT (names),
#                              SPINDLE_NETNS_SERVER_ADDR/_CLIENT_ADDR and SPINDLE_NETNS_LINK
#   spindle_netns_remove       deletes what spindle_netns_pair made (call it from the EXIT trap)
#   spindle_netns_sweep        deletes spindle-*-<pid> namespaces left by runs that were killed
#
# The addresses exist only inside the two namespaces (the host's interfaces and routes are
# untouched), so they cannot clash with the machine's network or with another run's pair.
# Names carry the creating script's PID: a pair left by a run that was killed (SIGKILL, no trap)
# is removed by the next run once that PID is gone.

SPINDLE_NETNS_SERVER="" SPINDLE_NETNS_CLIENT=""
SPINDLE_NETNS_SERVER_ADDR=10.213.0.1 SPINDLE_NETNS_CLIENT_ADDR=10.213.0.2
SPINDLE_NETNS_LINK=""

# Deletes spindle-*-<pid> namespaces whose creating process has exited.
spindle_netns_sweep() {
  local ns pid
  while read -r ns _; do
    [[ "$ns" =~ ^spindle-.*-([0-9]+)$ ]] || continue
    pid="${BASH_REMATCH[1]}"
    [[ -d "/proc/$pid" ]] || ip netns del "$ns" 2>/dev/null || true
  done < <(ip netns list 2>/dev/null)
}

spindle_netns_pair() {
  local tag="$1" veth_s="spv${$}s" veth_c="spv${$}c"
  command -v ip >/dev/null 2>&1 || spindle_ensure_packages iproute2
  spindle_netns_sweep
  SPINDLE_NETNS_SERVER="spindle-$tag-srv-$$" SPINDLE_NETNS_CLIENT="spindle-$tag-cli-$$"
  local err
  if ! err="$(ip netns add "$SPINDLE_NETNS_SERVER" 2>&1)"; then
    SPINDLE_NETNS_SERVER="" SPINDLE_NETNS_CLIENT=""
    spindle_die "cannot create a network namespace (needs root or CAP_NET_ADMIN): $err"
  fi
  ip netns add "$SPINDLE_NETNS_CLIENT"
  # Made in this namespace, then each end moved: nothing stays on the host.
  ip link add "$veth_s" type veth peer name "$veth_c"
  ip link set "$veth_s" netns "$SPINDLE_NETNS_SERVER"
  ip link set "$veth_c" netns "$SPINDLE_NETNS_CLIENT"
  ip -n "$SPINDLE_NETNS_SERVER" addr add "$SPINDLE_NETNS_SERVER_ADDR/30" dev "$veth_s"
  ip -n "$SPINDLE_NETNS_CLIENT" addr add "$SPINDLE_NETNS_CLIENT_ADDR/30" dev "$veth_c"
  local ns
  for ns in "$SPINDLE_NETNS_SERVER" "$SPINDLE_NETNS_CLIENT"; do
    # A new namespace's loopback is down; the server's downstream and JVM tools use it.
    ip -n "$ns" link set lo up
  done
  ip -n "$SPINDLE_NETNS_SERVER" link set "$veth_s" up
  ip -n "$SPINDLE_NETNS_CLIENT" link set "$veth_c" up
  local mtu qdisc
  mtu="$(ip -n "$SPINDLE_NETNS_SERVER" -o link show "$veth_s" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')"
  qdisc="$(ip -n "$SPINDLE_NETNS_SERVER" -o link show "$veth_s" | sed -n 's/.* qdisc \([^ ]*\).*/\1/p')"
  SPINDLE_NETNS_LINK="veth $veth_c ($SPINDLE_NETNS_CLIENT_ADDR/30, netns $SPINDLE_NETNS_CLIENT) <-> $veth_s ($SPINDLE_NETNS_SERVER_ADDR/30, netns $SPINDLE_NETNS_SERVER), MTU ${mtu:-?}, qdisc ${qdisc:-?}"
}

spindle_netns_remove() {
  local ns
  for ns in "$SPINDLE_NETNS_CLIENT" "$SPINDLE_NETNS_SERVER"; do
    # Deleting a namespace deletes the veth end inside it, and so the pair.
    [[ -z "$ns" ]] || ip netns del "$ns" 2>/dev/null || true
  done
  SPINDLE_NETNS_SERVER="" SPINDLE_NETNS_CLIENT=""
}

# Prints "key = value; ..." for the sysctls that shape a benchmark's TCP inside namespace $1
# (per namespace: a new one starts from the kernel's defaults, not the host's settings).
spindle_netns_sysctls() {
  local k
  for k in net.core.somaxconn net.ipv4.tcp_tw_reuse net.ipv4.ip_local_port_range; do
    printf '%s = %s; ' "$k" "$(ip netns exec "$1" sysctl -n "$k" 2>/dev/null | tr '\t' ' ' || echo '?')"
  done
}
