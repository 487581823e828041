package config

import (
	"fmt"
	"strings"
)

// Hooks (--hook TYPE:CMD, [loop.hooks]): the user's own commands at fixed points of a loop's
// life, and how a hook's spec reads. The loop runs them.

// Hook types.
const (
	HookPreIteration  = "pre-iteration"  // before each iteration's agent starts
	HookPostIteration = "post-iteration" // after each iteration ended and was evaluated
	HookOnComplete    = "on-complete"    // the loop ended complete or done
	HookOnStagnation  = "on-stagnation"  // the stagnation breaker stopped it
	HookOnFailure     = "on-failure"     // it failed, or used its iterations without passing its checks
)

// HookTypes are the valid types, in the order of a loop's life.
var HookTypes = []string{HookPreIteration, HookPostIteration, HookOnComplete, HookOnStagnation, HookOnFailure}

// Hook is one --hook.
type Hook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// ParseHook reads TYPE:CMD.
func ParseHook(spec string) (Hook, error) {
	typ, cmd, ok := strings.Cut(spec, ":")
	valid := false
	for _, t := range HookTypes {
		valid = valid || t == typ
	}
	if !ok || !valid {
		return Hook{}, fmt.Errorf("invalid --hook '%s': unknown hook type '%s' (valid types: %s)", spec, typ, strings.Join(HookTypes, ", "))
	}
	if strings.TrimSpace(cmd) == "" {
		return Hook{}, fmt.Errorf("invalid --hook '%s': no command after '%s:'", spec, typ)
	}
	return Hook{Type: typ, Command: cmd}, nil
}
