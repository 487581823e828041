package serve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheTokenIsMadeOnceKeptPrivateAndRotated(t *testing.T) {
	root := t.TempDir()
	tok, made, err := Token(root)
	if err != nil || !made || !tokenRule.MatchString(tok) {
		t.Fatalf("first Token: %q %v %v", tok, made, err)
	}
	for path, want := range map[string]os.FileMode{Dir(root): 0o700, TokenPath(root): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	again, made, err := Token(root)
	if err != nil || made || again != tok {
		t.Errorf("second Token: %q %v %v, want the first", again, made, err)
	}
	rotated, err := NewToken(root)
	if err != nil || rotated == tok || !tokenRule.MatchString(rotated) {
		t.Errorf("NewToken: %q %v", rotated, err)
	}
	if now, _, _ := Token(root); now != rotated {
		t.Errorf("after rotation Token is %q, want %q", now, rotated)
	}
}

func TestATokenFileMadeReadableIsMadePrivateAgain(t *testing.T) {
	root := t.TempDir()
	if _, _, err := Token(root); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(TokenPath(root), 0o644)
	_ = os.Chmod(Dir(root), 0o755)
	if _, _, err := Token(root); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(TokenPath(root)); fi.Mode().Perm() != 0o600 {
		t.Errorf("token %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(Dir(root)); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir %v", fi.Mode().Perm())
	}
}

func TestADamagedTokenIsRefused(t *testing.T) {
	root := t.TempDir()
	_ = os.MkdirAll(Dir(root), 0o700)
	_ = os.WriteFile(TokenPath(root), []byte("short"), 0o600)
	if _, _, err := Token(root); err == nil || !strings.Contains(err.Error(), "--new-token") {
		t.Errorf("damaged token: %v", err)
	}
}

func TestOneServerPerStateDirectory(t *testing.T) {
	root := t.TempDir()
	claim, err := ClaimDir(root, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := claim.Announce("127.0.0.1:8717"); err != nil {
		t.Fatal(err)
	}
	_, err = ClaimDir(root, "127.0.0.1:9999")
	var running *ErrRunning
	if !errors.As(err, &running) || running.PID != os.Getpid() || running.Addr != "127.0.0.1:8717" {
		t.Fatalf("second claim: %v", err)
	}
	claim.Release()
	if _, err := os.Stat(filepath.Join(Dir(root), "running")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("running file left: %v", err)
	}
	again, err := ClaimDir(root, "127.0.0.1:9999")
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	again.Release()
}

func TestListenWords(t *testing.T) {
	for addr, loop := range map[string]bool{"127.0.0.1:8717": true, "[::1]:1": true, "localhost:1": true,
		"0.0.0.0:1": false, ":8717": false, "192.0.2.1:1": false, "box:1": false} {
		if Loopback(addr) != loop {
			t.Errorf("Loopback(%s) = %v", addr, !loop)
		}
		if (ExposedWarning(addr, false) == "") != loop || ExposedWarning(addr, true) != "" {
			t.Errorf("ExposedWarning(%s) wrong", addr)
		}
	}
	if w := ExposedWarning("0.0.0.0:8717", false); !strings.Contains(w, "TLS") || !strings.Contains(w, "SSH tunnel") || !strings.Contains(w, "tailnet") {
		t.Errorf("warning %q", w)
	}
	for addr, want := range map[string]string{"127.0.0.1:8717": "http://127.0.0.1:8717/login?token=ab", ":8717": "http://127.0.0.1:8717/login?token=ab",
		"0.0.0.0:9": "http://127.0.0.1:9/login?token=ab", "[::1]:9": "http://[::1]:9/login?token=ab"} {
		if got := LoginURL(addr, false, "ab"); got != want {
			t.Errorf("LoginURL(%s) = %s, want %s", addr, got, want)
		}
	}
	if got := LoginURL("box:1", true, "ab"); got != "https://box:1/login?token=ab" {
		t.Errorf("TLS login %s", got)
	}
}
