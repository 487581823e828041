package ralph

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
)

// opencode tells its plugins every event of its server: a session gone idle (its turn over),
// a session's error, a permission asked. An iteration's opencode is given a plugin of swarm's
// in the loop's box, named in the inline configuration opencode adds to all its others
// (OPENCODE_CONFIG_CONTENT): the user's configuration files, the project's and their plugins
// all still apply. The plugin runs the recorder with each event as Claude Code's hooks give
// theirs. A worker whose environment sets OPENCODE_CONFIG_CONTENT itself is left as it is,
// read from its screen: its own inline configuration would have to go on a command line, for
// every local user to read, with swarm's plugin added to it.

// IsOpencode reports whether cmd runs opencode.
func IsOpencode(cmd []string) bool {
	return len(cmd) > 0 && filepath.Base(cmd[0]) == "opencode"
}

// OpencodePlugin is the plugin opencode is given for its events.
func (d Dir) OpencodePlugin() string { return filepath.Join(d.AgentBox(), "opencode-swarm.js") }

// OpencodeOwnConfig reports whether the worker's environment gives opencode an inline
// configuration of its own (see above).
func OpencodeOwnConfig(envFile string) bool {
	return EnvFileGetenv(envFile)("OPENCODE_CONFIG_CONTENT") != ""
}

// opencodeConfig is the inline configuration that names the plugin at path.
func opencodeConfig(path string) string {
	u := url.URL{Scheme: "file", Path: path}
	data, _ := json.Marshal(map[string]any{"plugin": []string{u.String()}})
	return string(data)
}

// opencodePlugin is the plugin's source: rec, run with each event of the session's own
// (a subagent's sessions are passed over) as JSON on its stdin.
func opencodePlugin(rec []string) []byte {
	argv, _ := json.Marshal(rec)
	return []byte(strings.Replace(opencodePluginSource, "RECORDER", string(argv), 1))
}

// opencodePluginSource is the plugin, RECORDER standing for the recorder's argv. A turn's
// end is a Stop with the turn's last text (where a done marker is); an error a StopFailure,
// but for the user's own interruption; a permission a permission_prompt Notification.
const opencodePluginSource = `// Written by swarm for one iteration of a loop: records the agent's events for it.
import { spawn } from "node:child_process";

const recorder = RECORDER;
const subagents = new Set();
const roles = new Map();
const prompts = new Set();
const lastText = new Map();
// answered: the sessions whose model answered since their last prompt. An idle session that
// was not answered is no turn's end (opencode tells idle around a prompt's start too).
const answered = new Set();
// A turn that ends without a word of answer may be one an error ended, which opencode tells
// a moment before or after: its end waits for that long, and an error told meanwhile is the
// turn's end instead.
const errorWait = 2000;
const pendingStops = new Map();

function endTurn(sessionID) {
  const text = lastText.get(sessionID) || "";
  const stop = () => record({ hook_event_name: "Stop", session_id: sessionID, last_assistant_message: text });
  if (text) return stop();
  pendingStops.set(sessionID, setTimeout(() => { pendingStops.delete(sessionID); stop(); }, errorWait));
}

function dropPendingStops(sessionID) {
  for (const [id, timer] of pendingStops) {
    if (!sessionID || id === sessionID) { clearTimeout(timer); pendingStops.delete(id); }
  }
}

// Each event is recorded once the one before it is: opencode tells a turn's error and its
// end a moment apart, and two recorders started at once could write them the other way round.
let recorded = Promise.resolve();

function record(event) {
  recorded = recorded.then(() => new Promise((done) => {
    try {
      const p = spawn(recorder[0], recorder.slice(1), { stdio: ["pipe", "ignore", "ignore"] });
      p.on("error", () => done());
      p.on("close", () => done());
      p.stdin.on("error", () => {});
      p.stdin.end(JSON.stringify(event));
    } catch {
      done();
    }
  }));
}

export const SwarmSignals = async () => {
  record({ hook_event_name: "SessionStart" });
  return {
    event: async ({ event }) => {
      const p = (event && event.properties) || {};
      switch (event && event.type) {
        case "session.created":
        case "session.updated":
          if (p.info && p.info.parentID) subagents.add(p.info.id);
          return;
        case "message.updated":
          if (!p.info) return;
          roles.set(p.info.id, p.info.role);
          if (p.info.role === "assistant") answered.add(p.info.sessionID);
          if (p.info.role === "user" && !subagents.has(p.info.sessionID) && !prompts.has(p.info.id)) {
            prompts.add(p.info.id);
            answered.delete(p.info.sessionID);
            lastText.delete(p.info.sessionID);
            record({ hook_event_name: "UserPromptSubmit", session_id: p.info.sessionID });
          }
          return;
        case "message.part.updated":
          if (p.part && p.part.type === "text" && roles.get(p.part.messageID) === "assistant") {
            lastText.set(p.part.sessionID, p.part.text || "");
          }
          return;
        case "session.idle":
          if (subagents.has(p.sessionID) || !answered.has(p.sessionID)) return;
          answered.delete(p.sessionID);
          endTurn(p.sessionID);
          return;
        case "session.error": {
          const err = p.error || {};
          if (subagents.has(p.sessionID) || err.name === "MessageAbortedError") return;
          dropPendingStops(p.sessionID);
          const data = err.data || {};
          record({ hook_event_name: "StopFailure", session_id: p.sessionID || "", error: err.name || "error",
            error_details: String(data.message || err.name || "error") });
          return;
        }
        case "permission.asked":
          if (subagents.has(p.sessionID)) return;
          record({ hook_event_name: "Notification", session_id: p.sessionID, notification_type: "permission_prompt",
            message: "opencode needs your permission: " + [p.permission].concat(p.patterns || []).join(" ") });
          return;
      }
    },
  };
};
`

// EndsTurnLast reports an agent whose turn's end is told after all of the turn is over:
// opencode's session.idle comes once its plugins, swarm's and the user's, have had the turn,
// so a screen still drawing its last frame is no Stop hook running and the turn ends at once.
func EndsTurnLast(agent string) bool { return agent == "opencode" }
