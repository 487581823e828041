package config

import (
	"os"

	"github.com/BurntSushi/toml"
)

// Config is the configuration files that apply in one directory (Paths), each read and
// decoded once. A file's mistakes (it cannot be read, it is not TOML) are reported when one
// of its tables is asked for, so they come in the same order as the mistakes in the tables.
type Config struct {
	files []*file
}

// Load reads the configuration files that apply to a loop or worker started in dir.
func Load(dir string) *Config {
	c := &Config{}
	for _, path := range Paths(dir) {
		c.files = append(c.files, readFile(path))
	}
	return c
}

// file is one configuration file, decoded.
type file struct {
	path   string
	data   []byte
	md     toml.MetaData
	tables map[string]toml.Primitive // the top-level keys, decoded when asked for
	err    error                     // reading or decoding it failed

	keys    []string // CommandKeys, once known
	keysSet bool
	consent error // why its commands may not run (nil: they may), once asked
	asked   bool
}

func readFile(path string) *file {
	data, err := os.ReadFile(path)
	if err != nil {
		return &file{path: path, err: err}
	}
	return decodeFile(path, data)
}

// decodeFile decodes data, the content of the file at path.
func decodeFile(path string, data []byte) *file {
	f := &file{path: path, data: data}
	md, err := toml.Decode(string(data), &f.tables)
	if err != nil {
		f.err = tomlError(path, data, err)
		return f
	}
	f.md = md
	return f
}

// table decodes the top-level key name into v (a map, for the tables read that way); a
// file without it leaves v alone.
func (f *file) table(name string, v any) error {
	prim, ok := f.tables[name]
	if !ok {
		return nil
	}
	if err := f.md.PrimitiveDecode(prim, v); err != nil {
		return tomlError(f.path, f.data, err)
	}
	return nil
}

// commandKeys is CommandKeys of the file, found once.
func (f *file) commandKeys() []string {
	if !f.keysSet {
		doc := map[string]any{}
		for name, prim := range f.tables {
			var v any
			if err := f.md.PrimitiveDecode(prim, &v); err == nil {
				doc[name] = v
			}
		}
		f.keys, f.keysSet = commandKeysOf(doc), true
	}
	return f.keys
}

// allows lets a reader use the tables named by prefixes ("[loop" for instance) when they run
// nothing, or when the file may run its commands (asked of the allow-list once per file).
func (f *file) allows(prefixes ...string) error {
	if !usesAny(f.commandKeys(), prefixes) {
		return nil
	}
	if !f.asked {
		f.consent, f.asked = consentError(f.path, f.data, f.commandKeys()), true
	}
	return f.consent
}
