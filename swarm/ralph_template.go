package swarm

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/templates"
)

func ralphTemplateCommand() *cli.Command {
	return &cli.Command{
		Name:  "template",
		Usage: "print the starter PROMPT.md template (or agent mode's prompts)",
		Description: `Without flags: a starter PROMPT.md for a ralph loop. --plan and --build print the
prompts swarm agent gives for planning and for building a spec; a project overrides them
with ralph/PLAN_PROMPT.md and ralph/BUILD_PROMPT.md, where {{spec_path}}, {{spec_name}},
{{spec}} (the spec's text), {{plan_path}} and {{spec_id}} are filled in.

Examples:
   swarm ralph template > PROMPT.md
   swarm ralph template --build > ralph/BUILD_PROMPT.md`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "plan", Usage: "agent mode's prompt for planning a spec"},
			&cli.BoolFlag{Name: "build", Usage: "agent mode's prompt for building a spec"},
		},
		Action: func(c *cli.Context) error {
			return runRalphTemplate(outputEnv(c), ralphTemplateOptions{plan: c.Bool("plan"), build: c.Bool("build")})
		},
	}
}

// ralphTemplateOptions picks the template.
type ralphTemplateOptions struct{ plan, build bool }

func runRalphTemplate(e *env, o ralphTemplateOptions) error {
	switch {
	case o.plan && o.build:
		return fail("--plan and --build: choose one")
	case o.plan:
		fmt.Fprint(e.stdout, templates.PlanPrompt)
	case o.build:
		fmt.Fprint(e.stdout, templates.BuildPrompt)
	default:
		fmt.Fprint(e.stdout, templates.Prompt)
	}
	return nil
}
