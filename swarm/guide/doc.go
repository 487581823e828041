// Package guide holds swarm's user guides: one Markdown file per topic, built into the binary
// so that `swarm guide TOPIC` shows the manual of the very version that runs. Each file starts
// with a "# Title" line and a one-line summary, its first paragraph, which the list of topics
// shows. The package knows nothing of the command line; swarm/guide.go is the command.
package guide
