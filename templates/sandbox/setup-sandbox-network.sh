#!/usr/bin/env bash
# setup-sandbox-network.sh: create the docker network sandbox.sh uses and allow containers on
# it to reach only DNS and the model APIs (and GitHub over HTTPS with SANDBOX_ALLOW_GITHUB=1).
# Everything else from the network is rejected.
#
#   sudo ./setup-sandbox-network.sh          # run again to refresh addresses (they change)
#   sudo ./teardown-sandbox-network.sh       # undo
#
# Settings: SANDBOX_NETWORK (default swarm-sandbox), SANDBOX_SUBNET (default 172.31.250.0/24),
# SANDBOX_ALLOW_HOSTS (extra host names, space separated).
set -euo pipefail

network="${SANDBOX_NETWORK:-swarm-sandbox}"
subnet="${SANDBOX_SUBNET:-172.31.250.0/24}"
tag="swarm-sandbox:$network"
hosts="api.anthropic.com statsig.anthropic.com api.openai.com chatgpt.com auth.openai.com ${SANDBOX_ALLOW_HOSTS:-}"

if [ "$(id -u)" -ne 0 ]; then
    echo "setup-sandbox-network.sh: run as root (sudo $0)" >&2
    exit 1
fi
for tool in docker iptables getent; do
    command -v "$tool" >/dev/null 2>&1 || { echo "setup-sandbox-network.sh: $tool is required" >&2; exit 1; }
done

if ! docker network inspect "$network" >/dev/null 2>&1; then
    docker network create --driver bridge --subnet "$subnet" "$network" >/dev/null
    echo "created docker network $network ($subnet)"
fi

# Rules carry a comment naming this network, so a re-run and the teardown find exactly them.
drop_rules() {
    iptables -S DOCKER-USER 2>/dev/null | grep -F -- "--comment \"$tag\"" | sed 's/^-A /-D /' |
        while read -r rule; do eval "iptables $rule"; done
}
allow() { iptables -I DOCKER-USER -s "$subnet" "$@" -m comment --comment "$tag" -j ACCEPT; }

drop_rules
iptables -A DOCKER-USER -s "$subnet" -m comment --comment "$tag" -j REJECT --reject-with icmp-port-unreachable
allow -m conntrack --ctstate ESTABLISHED,RELATED
allow -p udp --dport 53
allow -p tcp --dport 53

addresses() { getent ahostsv4 "$1" | awk '{print $1}' | sort -u; }
for host in $hosts; do
    found=0
    for ip in $(addresses "$host"); do
        allow -d "$ip" -p tcp --dport 443
        found=1
    done
    [ "$found" = 1 ] || echo "warning: cannot resolve $host; it stays blocked" >&2
done
if [ "${SANDBOX_ALLOW_GITHUB:-0}" = 1 ]; then
    if command -v curl >/dev/null 2>&1 && command -v jq >/dev/null 2>&1; then
        for cidr in $(curl -sf https://api.github.com/meta | jq -r '.web[], .api[]' | grep -v ':'); do
            allow -d "$cidr" -p tcp --dport 443
        done
    else
        echo "warning: SANDBOX_ALLOW_GITHUB needs curl and jq; GitHub stays blocked" >&2
    fi
fi
echo "sandbox network $network ready: DNS and HTTPS to: $hosts"
