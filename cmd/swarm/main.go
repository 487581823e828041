// Command swarm runs AI coding agents as named workers in tmux and keeps them looping.
package main

import (
	"os"

	"github.com/swarm-dev/swarm/swarm"
)

func main() { os.Exit(swarm.Main()) }
