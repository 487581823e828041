package config

import (
	"fmt"
	"io"
	"os"

	"github.com/BurntSushi/toml"
)

// Config is the configuration files that apply in one directory (Paths), each read and
// decoded once. A file's mistakes (it cannot be read, it is not TOML) are reported when one
// of its tables is asked for, so they come in the same order as the mistakes in the tables.
// A file that is not the user's alone and whose content they have not allowed is ignored
// (trust.go): its tables are never asked for, and Sources says why.
type Config struct {
	files   []*file // those that apply, in order
	ignored []*file
	sources []Source
}

// Load reads the configuration files that apply to a loop or worker started in dir.
func Load(dir string) *Config {
	c := &Config{sources: []Source{}}
	for _, path := range Paths(dir) {
		f := readFile(path)
		if f.src.Ignored {
			c.ignored = append(c.ignored, f)
		} else {
			c.files = append(c.files, f)
		}
		c.sources = append(c.sources, f.src)
	}
	return c
}

// Sources are the files Load found, in the order they apply, each applied or ignored.
func (c *Config) Sources() []Source { return append([]Source{}, c.sources...) }

// IgnoredNaming is the first ignored file that names the setting key (as CommandKeys says it:
// "[regent] test_command"), for a command that must not go on as if the file said nothing.
func (c *Config) IgnoredNaming(key string) (Source, bool) {
	for _, f := range c.ignored {
		for _, k := range f.commandKeys() {
			if k == key {
				return f.src, true
			}
		}
	}
	return Source{}, false
}

// file is one configuration file, decoded.
type file struct {
	path   string
	data   []byte
	md     toml.MetaData
	tables map[string]toml.Primitive // the top-level keys, decoded when asked for
	err    error                     // reading or decoding it failed
	src    Source                    // whether it applies, and why not

	keys    []string // CommandKeys, once known
	keysSet bool
	consent error // why its commands may not run (nil: they may), once asked
	asked   bool
}

// maxFileSize bounds what is read of a configuration file: a file larger than that is no
// configuration, and reading it whole could take the memory of every loop started under it.
const maxFileSize = 1 << 20

func readFile(path string) *file {
	fh, err := os.Open(path)
	if err != nil {
		return &file{path: path, err: err, src: Source{Path: path}}
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return &file{path: path, err: err, src: Source{Path: path}}
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err == nil && len(data) > maxFileSize {
		err = fmt.Errorf("%s: larger than %d bytes: not a configuration file", path, maxFileSize)
	}
	if err != nil {
		return &file{path: path, err: err, src: Source{Path: path}}
	}
	f := decodeFile(path, data)
	f.trust(fi)
	return f
}

// trust decides whether the file applies: it is the user's alone, or they allowed this very
// content (then its commands need no other consent). fi is its stat as it was read.
func (f *file) trust(fi os.FileInfo) {
	f.src = Source{Path: f.path, SHA256: ConsentHash(f.data)}
	if canon, err := CanonicalPath(f.path); err == nil {
		f.src.Path = canon
	}
	f.src.NotYours = distrustOf(f.path, fi)
	if f.src.NotYours == "" {
		return
	}
	prev, found := lookupAllowed(f.src.Path)
	switch {
	case found && prev.SHA256 == f.src.SHA256:
		f.src.Allowed, f.asked = true, true
	case found:
		f.src.Ignored, f.src.Changed = true, true
	default:
		f.src.Ignored = true
	}
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
