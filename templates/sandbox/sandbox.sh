#!/usr/bin/env bash
# sandbox.sh: run a coding agent inside a Docker container that sees only this directory and
# (after setup-sandbox-network.sh) reaches only the model API.
#
#   ./sandbox.sh --dangerously-skip-permissions           # Claude Code
#   SANDBOX_AGENT=codex ./sandbox.sh --full-auto           # Codex
#
# In a ralph loop (one container per iteration, removed when the agent exits):
#   swarm ralph spawn --name dev --worktree --prompt-file PROMPT.md --max-iterations 30 \
#       -- ./sandbox.sh --dangerously-skip-permissions
#
# Settings (environment):
#   SANDBOX_AGENT    claude (default) or codex
#   SANDBOX_IMAGE    image name (default swarm-sandbox; built from Dockerfile.sandbox if missing)
#   SANDBOX_NETWORK  docker network (default swarm-sandbox; see setup-sandbox-network.sh)
#   SANDBOX_MEMORY   memory limit (default 8g)    SANDBOX_CPUS  CPU limit (default 4)
#   SANDBOX_PIDS     process limit (default 1024)
# Credentials passed through when set: ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN,
# OPENAI_API_KEY, GH_TOKEN.
set -euo pipefail

if ! command -v docker >/dev/null 2>&1; then
    echo "sandbox.sh: docker is not installed" >&2
    exit 127
fi
case "${BASH_SOURCE[0]}" in
    */*) here="$(cd "${BASH_SOURCE[0]%/*}" && pwd)" ;;
    *) here="$PWD" ;;
esac
agent="${SANDBOX_AGENT:-claude}"
image="${SANDBOX_IMAGE:-swarm-sandbox}"
network="${SANDBOX_NETWORK:-swarm-sandbox}"

case "$agent" in
    claude | codex) ;;
    *) echo "sandbox.sh: SANDBOX_AGENT must be claude or codex, not '$agent'" >&2; exit 2 ;;
esac
if ! docker image inspect "$image" >/dev/null 2>&1; then
    echo "sandbox.sh: building image $image from Dockerfile.sandbox" >&2
    docker build --build-arg "UID=$(id -u)" --build-arg "GID=$(id -g)" \
        -t "$image" -f "$here/Dockerfile.sandbox" "$here" >&2
fi
if ! docker network inspect "$network" >/dev/null 2>&1; then
    echo "sandbox.sh: network $network does not exist; run: sudo $here/setup-sandbox-network.sh" >&2
    exit 1
fi

# Only the variables that are set are passed, by name: their values never appear on this
# command line (where any user could read them in ps).
pass=()
for var in ANTHROPIC_API_KEY CLAUDE_CODE_OAUTH_TOKEN OPENAI_API_KEY GH_TOKEN SWARM_ITERATION SWARM_WORKER; do
    if [ -n "${!var:-}" ]; then
        pass+=(-e "$var")
    fi
done

tty=()
if [ -t 0 ] && [ -t 1 ]; then
    tty=(-it)
fi

exec docker run --rm "${tty[@]}" \
    --network "$network" \
    --memory "${SANDBOX_MEMORY:-8g}" --memory-swap "${SANDBOX_MEMORY:-8g}" \
    --cpus "${SANDBOX_CPUS:-4}" --pids-limit "${SANDBOX_PIDS:-1024}" \
    --cap-drop ALL --security-opt no-new-privileges \
    -v "$PWD:/work" -w /work \
    -e DISABLE_AUTOUPDATER=1 "${pass[@]}" \
    "$image" "$agent" "$@"
