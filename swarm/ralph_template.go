package swarm

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/templates"
)

func ralphTemplateCommand() *cli.Command {
	return &cli.Command{
		Name:  "template",
		Usage: "print the starter PROMPT.md template",
		Description: `Examples:
   swarm ralph template > BUILD_PROMPT.md`,
		Action: func(c *cli.Context) error {
			return runRalphTemplate(outputEnv(c), ralphTemplateOptions{})
		},
	}
}

// ralphTemplateOptions is empty: the template takes no flags.
type ralphTemplateOptions struct{}

func runRalphTemplate(e *env, _ ralphTemplateOptions) error {
	fmt.Fprint(e.stdout, templates.Prompt)
	return nil
}
