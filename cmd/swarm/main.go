package main

import (
	"os"

	"github.com/swarm-dev/swarm/swarm"
)

func main() { os.Exit(swarm.Main()) }
