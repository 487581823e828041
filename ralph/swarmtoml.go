package ralph

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// ProjectConfigName is the project file whose [regent] table configures supervision.
const ProjectConfigName = "swarm.toml"

// FindProjectConfig looks for swarm.toml in dir and its parents up to the repository root (the
// first directory holding .git) or the filesystem root.
func FindProjectConfig(dir string) string {
	for {
		p := filepath.Join(dir, ProjectConfigName)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// SupervisionFile is the [regent] table of swarm.toml; nil fields were not set.
type SupervisionFile struct {
	Enabled               *bool
	RollbackOnTestFailure *bool
	TestCommand           *string
	MaxRetries            *int
	RetryBackoffSeconds   *int
	HangTimeoutSeconds    *int
}

// ParseProjectConfig reads the [regent] table of a swarm.toml. Unknown keys in it and values
// of the wrong type or range are errors naming the file and the key's line. Other tables
// belong to other parts of swarm and are left alone.
func ParseProjectConfig(path string) (*SupervisionFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Supervision toml.Primitive `toml:"regent"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, tomlError(path, data, err)
	}
	if !md.IsDefined("regent") {
		return &SupervisionFile{}, nil
	}
	// Every check below runs inside the decoder (see keyValue), which is what knows the line
	// of each key.
	var raw any
	if err := md.PrimitiveDecode(doc.Supervision, &raw); err != nil {
		return nil, tomlError(path, data, err)
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, tomlError(path, data, md.PrimitiveDecode(doc.Supervision, notATable{}))
	}
	var table map[string]toml.Primitive
	if err := md.PrimitiveDecode(doc.Supervision, &table); err != nil {
		return nil, tomlError(path, data, err)
	}
	rf := &SupervisionFile{}
	// Keys come in file order, so the first mistake in the file is the one reported.
	for _, k := range md.Keys() {
		if len(k) != 2 || k[0] != "regent" {
			continue
		}
		kv := keyValue{name: k[1], key: supervisionKeyNamed(k[1]), rf: rf}
		if err := md.PrimitiveDecode(table[k[1]], kv); err != nil {
			return nil, tomlError(path, data, err)
		}
	}
	// Asked once the file is known to be right, so a mistake in it is reported first.
	if err := checkConsent(path, data, "[regent]"); err != nil {
		return nil, err
	}
	return rf, nil
}

// regentKey is one setting of [regent]: what a good value looks like, for messages, and how
// it is stored.
type supervisionKey struct {
	name string
	want string
	set  func(rf *SupervisionFile, v any) error
}

// errWrongValue says a value is not of the kind supervisionKey.want describes.
var errWrongValue = errors.New("wrong value")

var supervisionKeys = []supervisionKey{
	{"enabled", "true or false", func(rf *SupervisionFile, v any) error { return setBool(&rf.Enabled, v) }},
	{"rollback_on_test_failure", "true or false", func(rf *SupervisionFile, v any) error {
		return setBool(&rf.RollbackOnTestFailure, v)
	}},
	{"test_command", "a quoted string", func(rf *SupervisionFile, v any) error {
		s, ok := v.(string)
		if !ok {
			return errWrongValue
		}
		rf.TestCommand = &s
		return nil
	}},
	{"max_retries", "a non-negative integer", func(rf *SupervisionFile, v any) error {
		return setCount(&rf.MaxRetries, v, 1)
	}},
	{"retry_backoff_seconds", "a non-negative integer", func(rf *SupervisionFile, v any) error {
		return setCount(&rf.RetryBackoffSeconds, v, 0)
	}},
	{"hang_timeout_seconds", "a non-negative integer", func(rf *SupervisionFile, v any) error {
		return setCount(&rf.HangTimeoutSeconds, v, 0)
	}},
}

func supervisionKeyNamed(name string) *supervisionKey {
	for i := range supervisionKeys {
		if supervisionKeys[i].name == name {
			return &supervisionKeys[i]
		}
	}
	return nil
}

func setBool(dst **bool, v any) error {
	b, ok := v.(bool)
	if !ok {
		return errWrongValue
	}
	*dst = &b
	return nil
}

// setCount stores a whole number of at least min (0 or 1).
func setCount(dst **int, v any, min int) error {
	n64, ok := v.(int64)
	n := int(n64)
	if !ok || n < 0 || int64(n) != n64 {
		return errWrongValue
	}
	if n < min {
		return fmt.Errorf("must be at least %d", min)
	}
	*dst = &n
	return nil
}

// keyValue decodes the value of one key of [regent]. It implements toml.Unmarshaler, so the
// decoder reports its errors as toml.ParseError at the key's position.
type keyValue struct {
	name string
	key  *supervisionKey // nil: not a key of [regent]
	rf   *SupervisionFile
}

func (kv keyValue) UnmarshalTOML(v any) error {
	if kv.key == nil {
		known := make([]string, len(supervisionKeys))
		for i, k := range supervisionKeys {
			known[i] = k.name
		}
		return fmt.Errorf("unknown key %q in [regent] (known: %s)", kv.name, strings.Join(known, ", "))
	}
	err := kv.key.set(kv.rf, v)
	if errors.Is(err, errWrongValue) {
		return fmt.Errorf("%s: expected %s, got %s", kv.name, kv.key.want, tomlText(v))
	}
	if err != nil {
		return fmt.Errorf("%s: %v", kv.name, err)
	}
	return nil
}

// notATable rejects a regent key that holds a value instead of the table.
type notATable struct{}

func (notATable) UnmarshalTOML(v any) error {
	return fmt.Errorf("regent: expected a table ([regent]), got %s", tomlText(v))
}

// tomlText shows a decoded value the way it is written in TOML.
func tomlText(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprint(v)
}

// tomlError puts the file and line in front of a decoding error. A value the TOML syntax
// does not allow at all (enabled = yes) gets the same message as one of the wrong type.
func tomlError(path string, data []byte, err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) || pe.Position.Line == 0 {
		return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
	}
	line := pe.Position.Line
	// The decoder counts a newline that ends a bad line as part of the next one (an
	// unclosed [regent header); the byte offset of the error is exact.
	if s := pe.Position.Start; s >= 0 && s < len(data) {
		line = 1 + bytes.Count(data[:s], []byte("\n"))
	}
	msg := pe.Message
	if name, ok := strings.CutPrefix(pe.LastKey, "regent."); ok && strings.HasPrefix(msg, "expected value but found") {
		if k := supervisionKeyNamed(name); k != nil {
			msg = fmt.Sprintf("%s: expected %s, got %s", name, k.want, rawValue(data, line))
		}
	}
	return fmt.Errorf("%s:%d: %s", path, line, msg)
}

// rawValue is the text after "=" on a line of the file, without a trailing comment.
func rawValue(data []byte, line int) string {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	_, v, _ := strings.Cut(lines[line-1], "=")
	v, _, _ = strings.Cut(v, "#")
	return strings.TrimSpace(v)
}
