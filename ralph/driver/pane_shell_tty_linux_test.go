package driver

import (
	"os"
	"path/filepath"
	"testing"
)

// What GNU stty -g prints (four flag words, then 32 control characters) is read back whole.
func TestReadModesTakesSttyDashG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.tty")
	line := "500:5:bf:8a3b:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	m, ok := readModes(path)
	if !ok {
		t.Fatal("modes not read")
	}
	if m.Iflag != 0x500 || m.Oflag != 0x5 || m.Cflag != 0xbf || m.Lflag != 0x8a3b {
		t.Errorf("flags %x %x %x %x", m.Iflag, m.Oflag, m.Cflag, m.Lflag)
	}
	// VINTR is ^C, VERASE DEL, VMIN 1.
	if m.Cc[0] != 3 || m.Cc[2] != 0x7f || m.Cc[6] != 1 {
		t.Errorf("control characters %v", m.Cc)
	}
}

// Modes not in that form are not taken: the pane shell puts its modes back itself then.
func TestReadModesRefusesWhatIsNotSttyDashG(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bsd":       "gfmt1:cflag=4b00:iflag=6b02:lflag=200005cb:oflag=3:discard=f\n",
		"short":     "500:5:bf:8a3b:3:1c\n",
		"torn":      "500:5:bf:8a3b:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0",
		"not hex":   "500:5:bf:zz:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0:0\n",
		"too large": "500:5:bf:8a3b:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:100:0\n",
	} {
		path := filepath.Join(dir, "w.tty")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := readModes(path); ok {
			t.Errorf("%s: %q taken as modes", name, text)
		}
	}
	if _, ok := readModes(filepath.Join(dir, "none")); ok {
		t.Error("a missing file taken as modes")
	}
}
