package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// SupervisionFile is the [regent] table of swarm.toml; nil fields were not set.
type SupervisionFile struct {
	Enabled               *bool
	RollbackOnTestFailure *bool
	TestCommand           *string
	MaxRetries            *int
	RetryBackoffSeconds   *int
	HangTimeoutSeconds    *int
}

// Supervision is the [regent] tables of the files, a later file's setting overriding an
// earlier one's.
func (c *Config) Supervision() (SupervisionFile, error) {
	var merged SupervisionFile
	for _, f := range c.files {
		rf, err := f.supervision()
		if err != nil {
			return SupervisionFile{}, err
		}
		keep(&merged.Enabled, rf.Enabled)
		keep(&merged.RollbackOnTestFailure, rf.RollbackOnTestFailure)
		keep(&merged.TestCommand, rf.TestCommand)
		keep(&merged.MaxRetries, rf.MaxRetries)
		keep(&merged.RetryBackoffSeconds, rf.RetryBackoffSeconds)
		keep(&merged.HangTimeoutSeconds, rf.HangTimeoutSeconds)
	}
	return merged, nil
}

// supervision reads the file's [regent] table. Unknown keys in it and values of the wrong
// type or range are errors naming the file and the key's line. Other tables belong to other
// parts of swarm and are left alone.
func (f *file) supervision() (*SupervisionFile, error) {
	if f.err != nil {
		return nil, f.err
	}
	if !f.md.IsDefined("regent") {
		return &SupervisionFile{}, nil
	}
	// Every check below runs inside the decoder (see keyValue), which is what knows the line
	// of each key.
	prim := f.tables["regent"]
	var raw any
	if err := f.md.PrimitiveDecode(prim, &raw); err != nil {
		return nil, tomlError(f.path, f.data, err)
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, tomlError(f.path, f.data, f.md.PrimitiveDecode(prim, notATable{}))
	}
	var table map[string]toml.Primitive
	if err := f.md.PrimitiveDecode(prim, &table); err != nil {
		return nil, tomlError(f.path, f.data, err)
	}
	rf := &SupervisionFile{}
	// Keys come in file order, so the first mistake in the file is the one reported.
	for _, k := range f.md.Keys() {
		if len(k) != 2 || k[0] != "regent" {
			continue
		}
		kv := keyValue{name: k[1], key: supervisionKeyNamed(k[1]), rf: rf}
		if err := f.md.PrimitiveDecode(table[k[1]], kv); err != nil {
			return nil, tomlError(f.path, f.data, err)
		}
	}
	// Asked once the file is known to be right, so a mistake in it is reported first.
	if err := f.allows("[regent]"); err != nil {
		return nil, err
	}
	return rf, nil
}

// supervisionKey is one setting of [regent]: what a good value looks like, for messages, and how
// it is stored.
type supervisionKey struct {
	name string
	want string
	set  func(rf *SupervisionFile, v any) error
}

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
		return fmt.Errorf("%s: %w", kv.name, err)
	}
	return nil
}

// notATable rejects a regent key that holds a value instead of the table.
type notATable struct{}

func (notATable) UnmarshalTOML(v any) error {
	return fmt.Errorf("regent: expected a table ([regent]), got %s", tomlText(v))
}
