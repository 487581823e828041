package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinaryForAnotherSystemIsTheOneBesideThisOne(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "swarm")
	other := filepath.Join(dir, "swarm-darwin-arm64")
	if err := os.WriteFile(other, []byte("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := binaryFor(self, "darwin", "arm64"); err != nil || got != other {
		t.Fatalf("binaryFor = %q, %v; want %q", got, err, other)
	}
	_, err := binaryFor(self, "linux", "arm64")
	if err == nil || !strings.Contains(err.Error(), "make dist") || !strings.Contains(err.Error(), "GOOS=linux GOARCH=arm64 go build -o "+filepath.Join(dir, "swarm-linux-arm64")) {
		t.Fatalf("a missing binary says %v", err)
	}
	if _, err := binaryFor(self, "freebsd", "amd64"); err == nil || !strings.Contains(err.Error(), "linux and darwin") {
		t.Fatalf("an unsupported system says %v", err)
	}
}
