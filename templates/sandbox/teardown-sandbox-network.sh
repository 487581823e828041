#!/usr/bin/env bash
# teardown-sandbox-network.sh: remove what setup-sandbox-network.sh made: its firewall rules
# and its docker network.
#
#   sudo ./teardown-sandbox-network.sh
set -euo pipefail

network="${SANDBOX_NETWORK:-swarm-sandbox}"
tag="swarm-sandbox:$network"

if [ "$(id -u)" -ne 0 ]; then
    echo "teardown-sandbox-network.sh: run as root (sudo $0)" >&2
    exit 1
fi
iptables -S DOCKER-USER 2>/dev/null | grep -F -- "--comment \"$tag\"" | sed 's/^-A /-D /' |
    while read -r rule; do eval "iptables $rule"; done
echo "removed the firewall rules of $network"
if docker network inspect "$network" >/dev/null 2>&1; then
    docker network rm "$network" >/dev/null
    echo "removed docker network $network"
fi
