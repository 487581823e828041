package swarm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionOptions are the arguments of `swarm completion`.
type completionOptions struct {
	Args []string
}

// completionScripts are the shells' scripts: each asks `swarm __complete` (complete.go) for
// the candidates, and falls back to file names where swarm offers none (a prompt file, the
// agent's command after --).
var completionScripts = map[string]string{
	"bash": `# swarm completion for bash
_swarm_complete() {
    local IFS=$'\n'
    local words=("${COMP_WORDS[@]:1:COMP_CWORD}")
    COMPREPLY=($(command swarm __complete -- "${words[@]}" 2>/dev/null))
    if [ ${#COMPREPLY[@]} -eq 0 ]; then
        COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
    fi
}
complete -o filenames -F _swarm_complete swarm
`,
	"zsh": `#compdef swarm
# swarm completion for zsh
_swarm() {
    local -a found
    found=("${(@f)$(command swarm __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    found=(${found:#})
    if (( ${#found} )); then
        compadd -a found
    else
        _files
    fi
}
if [ "$funcstack[1]" = "_swarm" ]; then
    _swarm "$@"
else
    compdef _swarm swarm
fi
`,
	"fish": `# swarm completion for fish
function __swarm_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l found (command swarm __complete -- $words[2..-1] 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\n' $found
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c swarm -f -a '(__swarm_complete)'
`,
}

func (o completionOptions) check() error {
	if len(o.Args) != 1 {
		return usageError("swarm completion bash|zsh|fish")
	}
	if _, ok := completionScripts[o.Args[0]]; !ok {
		return fail("no completion for shell '%s'; choose one of %s (see 'swarm completion --help')", o.Args[0], strings.Join(completionShells(), ", "))
	}
	return nil
}

func completionShells() []string {
	var out []string
	for s := range completionScripts {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (commands, flags, worker names)",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints the script that makes the shell complete swarm's commands, flags and worker names.

Install it for bash (one of):
   echo 'source <(swarm completion bash)' >> ~/.bashrc
   swarm completion bash > ~/.local/share/bash-completion/completions/swarm

for zsh (with compinit loaded):
   echo 'source <(swarm completion zsh)' >> ~/.zshrc

for fish:
   swarm completion fish > ~/.config/fish/completions/swarm.fish`,
		Action: func(c *cli.Context) error {
			o := completionOptions{Args: c.Args().Slice()}
			if err := o.check(); err != nil {
				return err
			}
			_, err := fmt.Fprint(c.App.Writer, completionScripts[o.Args[0]])
			return err
		},
	}
}
