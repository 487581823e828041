package screen

// Answering a tool's permission dialog by keys, for an agent whose permission is not held by
// swarm's hook (an agent without one, or one whose hold ran out): the keys that choose its
// first option (allow, once) or refuse. Both Claude Code and Gemini CLI number their options
// and choose one when its digit is typed, wherever the cursor is; Escape cancels the call.

// PermissionKeys are the tmux keys that answer the permission dialog st shows: yes or no.
// ok is false when st is no permission dialog swarm knows how to answer.
func PermissionKeys(st State, yes bool) (keys []string, ok bool) {
	if st.Kind != Dialog || st.Dialog != "tool-permission" && st.Dialog != "dangerous-command" {
		return nil, false
	}
	switch st.Agent {
	case "claude", "gemini":
		if yes {
			return []string{"1"}, true
		}
		return []string{"Escape"}, true
	}
	return nil, false
}
