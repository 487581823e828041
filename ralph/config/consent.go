package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// Consent for a project's swarm.toml. A repository someone else wrote can name commands
// (hooks, command and script checkers, the test command, the notify command and webhook, the
// agents' commands); swarm runs them only after the user allowed that file's exact content.
// The consent is a hash of the file recorded in the user's own config directory, never in the
// project, so a changed file (a pull, a checkout) asks again. The user's config.toml and flags
// given on the command line need no consent: the user wrote them.

// AllowedFile is one allowed project file.
type AllowedFile struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Allowed string `json:"allowed"` // RFC 3339
}

// allowList is the file of consents.
type allowList struct {
	Files []AllowedFile `json:"files"`
}

// AllowListPath is where consents are recorded ("" without a home directory).
func AllowListPath() string { return userConfigFile("allowed.json") }

// ErrNotAllowed marks a project file that names commands the user has not allowed.
var ErrNotAllowed = errors.New("not allowed")

// ConsentHash is the hash consent is given to: the file's bytes.
func ConsentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// CanonicalPath is the absolute path, symbolic links resolved, under which a file's consent is
// recorded, so the same file reached another way is the same file.
func CanonicalPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// CommandKeys lists the settings of a config file that run commands or send data away, as
// "[table] key" (with the checker for a command or script check). Empty: the file needs no
// consent. A file that is not TOML has none; its loader reports the syntax error.
func CommandKeys(data []byte) []string {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil
	}
	return commandKeysOf(doc)
}

// commandKeysOf is CommandKeys of a decoded file.
func commandKeysOf(doc map[string]any) []string {
	var out []string
	table := func(name string) map[string]any { t, _ := doc[name].(map[string]any); return t }
	has := func(t map[string]any, key string) bool { v, ok := t[key]; return ok && v != "" }
	if has(table("regent"), "test_command") {
		out = append(out, "[regent] test_command")
	}
	loop := table("loop")
	out = append(out, commandChecks("[loop] checks", loop["checks"])...)
	if hooks, ok := loop["hooks"].(map[string]any); ok {
		for _, typ := range sortedKeys(hooks) {
			out = append(out, "[loop.hooks] "+typ)
		}
	}
	for _, key := range []string{"command", "webhook"} {
		if has(table("notify"), key) {
			out = append(out, "[notify] "+key)
		}
	}
	if has(table("spawn"), "command") {
		out = append(out, "[spawn] command")
	}
	agents := table("agents")
	for _, name := range sortedKeys(agents) {
		a, _ := agents[name].(map[string]any)
		if has(a, "cmd") {
			out = append(out, fmt.Sprintf("[agents.%s] cmd", name))
		}
		out = append(out, commandChecks(fmt.Sprintf("[agents.%s] checks", name), a["checks"])...)
	}
	return out
}

// commandChecks are the checkers of a list that run something: command:CMD and scripts.
func commandChecks(label string, v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, c := range list {
		s, _ := c.(string)
		kind, _, _ := strings.Cut(s, ":")
		switch kind {
		case CheckFile, CheckMarker, CheckExitCode:
			continue
		}
		out = append(out, fmt.Sprintf("%s (%q)", label, s))
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// usesAny reports whether one of keys (CommandKeys) belongs to a table named by prefixes.
func usesAny(keys, prefixes []string) bool {
	for _, k := range keys {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
	}
	return false
}

// consentError is nil when the file at path, read as data, may run the commands its keys
// (CommandKeys) name: it is the user's own config.toml, or the user allowed this very content.
// Otherwise it says why not and how to allow it.
func consentError(path string, data []byte, keys []string) error {
	if isUserConfig(path) {
		return nil
	}
	canon, err := CanonicalPath(path)
	if err != nil {
		return err
	}
	prev, found := lookupAllowed(canon)
	if found && prev.SHA256 == ConsentHash(data) {
		return nil
	}
	why := "you have not allowed it"
	if found {
		why = "it changed since you allowed it"
	}
	return fmt.Errorf("%w: %s runs commands (%s) and %s: read it, then run 'swarm allow %s'",
		ErrNotAllowed, canon, strings.Join(keys, ", "), why, words.ShellWord(canon))
}

// isUserConfig reports whether path is the user's own config.toml.
func isUserConfig(path string) bool {
	user := UserConfigPath()
	if user == "" {
		return false
	}
	a, errA := CanonicalPath(path)
	b, errB := CanonicalPath(user)
	return errA == nil && errB == nil && a == b
}

// AllowedFiles are the recorded consents, in the order they were given.
func AllowedFiles() ([]AllowedFile, error) {
	path := AllowListPath()
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var l allowList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l.Files, nil
}

func lookupAllowed(canon string) (AllowedFile, bool) {
	files, err := AllowedFiles()
	if err != nil {
		return AllowedFile{}, false // unreadable: nothing is allowed
	}
	for _, f := range files {
		if f.Path == canon {
			return f, true
		}
	}
	return AllowedFile{}, false
}

// Allow records consent to the file at path as it is now, replacing an earlier one.
func Allow(path string, now time.Time) (AllowedFile, error) {
	canon, err := CanonicalPath(path)
	if err != nil {
		return AllowedFile{}, err
	}
	data, err := os.ReadFile(canon)
	if err != nil {
		return AllowedFile{}, err
	}
	entry := AllowedFile{Path: canon, SHA256: ConsentHash(data), Allowed: now.UTC().Format(time.RFC3339)}
	err = editAllowList(func(files []AllowedFile) []AllowedFile {
		return append(without(files, canon), entry)
	})
	return entry, err
}

// Revoke forgets the consent to the file at path; it reports whether there was one.
func Revoke(path string) (bool, error) {
	canon, err := CanonicalPath(path)
	if err != nil {
		return false, err
	}
	found := false
	err = editAllowList(func(files []AllowedFile) []AllowedFile {
		kept := without(files, canon)
		found = len(kept) < len(files)
		return kept
	})
	return found, err
}

func without(files []AllowedFile, canon string) []AllowedFile {
	var out []AllowedFile
	for _, f := range files {
		if f.Path != canon {
			out = append(out, f)
		}
	}
	return out
}

// editAllowList rewrites the consents through edit, one command at a time (two allowing at
// once both count); the file and its directory are the user's alone.
func editAllowList(edit func([]AllowedFile) []AllowedFile) error {
	path := AllowListPath()
	if path == "" {
		return errors.New("no home directory to record the consent in")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock, err := state.AcquireLock(path + ".lock")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	files, err := AllowedFiles()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(allowList{Files: edit(files)}, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(path, append(data, '\n'), 0o600)
}
