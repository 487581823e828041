package swarm

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/swarm/guide"
)

// `swarm guide [TOPIC]`: the user guides, from the binary itself (swarm/guide).

// guideArgs is the command's ArgsUsage; completion knows the command by it (complete.go).
const guideArgs = "[TOPIC]"

func guideCommand() *cli.Command {
	return &cli.Command{
		Name:      "guide",
		Usage:     "show a user guide (loops, checks, cost, commands, ...), or list them",
		ArgsUsage: guideArgs,
		Description: `Without a topic, lists the guides: each topic's name and what it is about. With a topic,
prints that guide as Markdown, as it is. The guides are the manual of this very binary.

Examples:
   swarm guide                      # the topics
   swarm guide loops                # ralph loops: prompts, done markers, pause, resume, logs
   swarm guide exit-codes | less
   swarm guide --format json        # [{"name", "title", "summary"}]`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json (the list of topics)"},
		},
		Action: func(c *cli.Context) error {
			format, err := formatFlag(c, "text", "json")
			if err != nil {
				return err
			}
			switch {
			case c.NArg() > 1:
				return usageError("swarm guide [TOPIC]")
			case c.NArg() == 1 && c.IsSet("format"):
				return fail("--format goes with the list of topics; a guide prints as Markdown")
			case c.NArg() == 1:
				return printGuide(c, c.Args().First())
			}
			return listGuides(c, format)
		},
	}
}

// printGuide writes the topic's Markdown; an unknown topic is "not found", as a worker is.
func printGuide(c *cli.Context, topic string) error {
	text, ok := guide.Text(topic)
	if !ok {
		return &exitError{code: ExitNotFound, msg: fmt.Sprintf("no guide named '%s' (topics: %s)", topic, strings.Join(guide.Names(), ", "))}
	}
	_, err := fmt.Fprint(c.App.Writer, text)
	return err
}

func listGuides(c *cli.Context, format string) error {
	topics := guide.Topics()
	if format == "json" {
		return printJSON(&env{stdout: c.App.Writer}, topics)
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	for _, t := range topics {
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, t.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.App.Writer, "\nRead one with: swarm guide TOPIC")
	return err
}
