package proc

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

func TestDarwinLetterTellsAZombie(t *testing.T) {
	for pstat, want := range map[int8]byte{1: 'I', 2: 'R', 3: 'S', 4: 'T', 5: 'Z', 0: '?', 9: '?'} {
		if got := darwinLetter(pstat); got != want {
			t.Errorf("darwinLetter(%d) = %c, want %c", pstat, got, want)
		}
	}
}

func TestDarwinStartTellsMicroseconds(t *testing.T) {
	if a, b := darwinStart(1700000000, 1), darwinStart(1700000000, 2); a == b || a == 0 {
		t.Fatalf("two starts a microsecond apart read %d and %d", a, b)
	}
	if got := darwinStart(-1, 0); got != 0 {
		t.Fatalf("a start before the epoch read %d, want 0", got)
	}
}

// procargs makes a KERN_PROCARGS2 record as macOS lays it out.
func procargs(exe string, pad int, args, env []string) []byte {
	rec := binary.LittleEndian.AppendUint32(nil, uint32(len(args)))
	rec = append(rec, exe...)
	rec = append(rec, make([]byte, 1+pad)...)
	for _, s := range append(slices.Clone(args), env...) {
		rec = append(append(rec, s...), 0)
	}
	return append(rec, 0, 0, 'x', 0) // what follows the environment is not of it
}

func TestProcargsEnviron(t *testing.T) {
	rec := procargs("/usr/bin/agent", 7, []string{"agent", "--flag=x", "SWARM_FAKE=1"},
		[]string{"HOME=/Users/a", "SWARM_WORKER_ID=w1", "noequals"})
	env, ok := procargsEnviron(rec)
	if !ok {
		t.Fatal("a well-formed record was refused")
	}
	got := strings.Split(strings.TrimSuffix(string(env), "\x00"), "\x00")
	want := []string{"HOME=/Users/a", "SWARM_WORKER_ID=w1"}
	if !slices.Equal(got, want) {
		t.Fatalf("environment %q, want %q (an argument that looks like an entry is not one)", got, want)
	}
	if !hasEntry(env, []byte("SWARM_WORKER_ID=w1")) {
		t.Fatal("the entry is not found the way Tagged looks")
	}
}

func TestProcargsEnvironRefusesBrokenRecords(t *testing.T) {
	full := procargs("/bin/sh", 0, []string{"sh", "-c"}, []string{"A=1"})
	for name, rec := range map[string][]byte{
		"empty":              nil,
		"argc only":          full[:4],
		"no end to the path": []byte("\x01\x00\x00\x00/bin/sh"),
		"fewer args than argc": append(binary.LittleEndian.AppendUint32(nil, 5),
			"/bin/sh\x00sh\x00"...),
	} {
		if _, ok := procargsEnviron(rec); ok {
			t.Errorf("%s: taken as a record", name)
		}
	}
	if env, ok := procargsEnviron(procargs("/bin/sh", 0, []string{"sh"}, nil)); !ok || len(env) != 0 {
		t.Errorf("a record without environment: %q, %v", env, ok)
	}
}

func TestPidLines(t *testing.T) {
	got := pidLines([]byte("412\n  77\nlsof: WARNING: can't stat()\n0\n-3\n\n"))
	if !slices.Equal(got, []int{412, 77}) {
		t.Fatalf("pidLines = %v", got)
	}
}

func TestDarwinLoad(t *testing.T) {
	rec := make([]byte, 24)
	binary.LittleEndian.PutUint32(rec, 3072) // 1.5 at a scale of 2048
	binary.LittleEndian.PutUint64(rec[16:], 2048)
	if got := darwinLoad(rec); got != 1.5 {
		t.Fatalf("darwinLoad = %v, want 1.5", got)
	}
	if darwinLoad(rec[:10]) != 0 || darwinLoad(make([]byte, 24)) != 0 {
		t.Fatal("a short record or a zero scale read as a load")
	}
}
