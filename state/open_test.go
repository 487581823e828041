package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	type rec struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	path := filepath.Join(dir, "r.json")
	if err := WriteJSON(path, rec{A: 7, B: "x"}); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
	if data := readString(t, path); !strings.HasSuffix(data, "}\n") {
		t.Fatalf("WriteJSON wrote %q", data)
	}
	var got rec
	if err := ReadJSON(path, &got); err != nil || got != (rec{A: 7, B: "x"}) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}

	err := ReadJSON(filepath.Join(dir, "absent.json"), &got)
	if !errors.Is(err, os.ErrNotExist) || IsCorrupt(err) {
		t.Fatalf("missing file: %v", err)
	}
}

// JSON that does not fit (another version's file) is an error, and stays where it is.
func TestReadJSONWrongTypeStaysInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte(`{"a": "seven"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var v struct {
		A int `json:"a"`
	}
	err := ReadJSON(path, &v)
	if err == nil || IsCorrupt(err) || !strings.Contains(err.Error(), "cannot read "+path) {
		t.Fatalf("ReadJSON = %v, want a plain read error", err)
	}
	if got := readString(t, path); got != `{"a": "seven"}` {
		t.Fatalf("file now holds %q", got)
	}
	assertOnly(t, dir, "r.json")
}

func TestReadJSONCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"truncated": `{"a": 1, "b": `,
		"empty":     ``,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "r.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			var v struct {
				A int `json:"a"`
			}
			err := ReadJSON(path, &v)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("ReadJSON returned %T %v, want *CorruptError", err, err)
			}
			if ce.Path != path || !strings.HasPrefix(ce.MovedTo, path+".corrupt-") {
				t.Fatalf("CorruptError %+v", ce)
			}
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if !errors.As(ce.Err, &se) && !errors.As(ce.Err, &te) {
				t.Fatalf("cause %T %v is not a JSON error", ce.Err, ce.Err)
			}
			if got := readString(t, ce.MovedTo); got != content {
				t.Fatalf("set-aside file holds %q", got)
			}
			assertOnly(t, dir, filepath.Base(ce.MovedTo))
			if err := ReadJSON(path, &v); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("second read: %v, want not-exist", err)
			}
		})
	}
}

func TestOpenCreatesPrivateDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "swarm")
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if d.Root != root {
		t.Fatalf("Root %q, want %q", d.Root, root)
	}
	for _, p := range []string{filepath.Dir(root), root, filepath.Join(root, "logs"), filepath.Join(root, "ralph")} {
		assertMode(t, p, 0o700)
	}
	// Opening again is harmless.
	if _, err := Open(root); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRelativeRoot(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	d, err := Open("rel")
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(wd, "rel"); d.Root != want {
		t.Fatalf("Root %q, want %q", d.Root, want)
	}
}

func TestOpenRefusesOpenDir(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o720, 0o702} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "open")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			// Chmod, because Mkdir's mode is filtered through the umask.
			if err := os.Chmod(root, mode); err != nil {
				t.Fatal(err)
			}
			_, err := Open(root)
			if err == nil || !strings.Contains(err.Error(), "writable by others") {
				t.Fatalf("Open of a %04o directory: %v", mode, err)
			}
			assertOnly(t, root)
		})
	}
}

func TestOpenRefusesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("Open of a regular file succeeded")
	}
}
