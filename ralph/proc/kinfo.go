package proc

import (
	"bytes"
	"encoding/binary"
	"strconv"
)

// What macOS tells of processes, decoded where every system can test it: the parts of its
// kinfo_proc that Stat gives, the environment in its KERN_PROCARGS2 record, and the PIDs lsof
// lists.

// The process states of macOS's p_stat (sys/proc.h).
const (
	darwinIdle   = 1 // SIDL: being made by fork
	darwinRun    = 2 // SRUN
	darwinSleep  = 3 // SSLEEP
	darwinStop   = 4 // SSTOP
	darwinZombie = 5 // SZOMB
)

// darwinLetter is p_stat as the letter Linux's /proc would show, so one reading of a state
// serves both: Z for a zombie, as callers test.
func darwinLetter(pstat int8) byte {
	switch pstat {
	case darwinIdle:
		return 'I'
	case darwinRun:
		return 'R'
	case darwinSleep:
		return 'S'
	case darwinStop:
		return 'T'
	case darwinZombie:
		return 'Z'
	}
	return '?'
}

// darwinStart is a start time (seconds and microseconds since the epoch) as one number: two
// processes that had the same PID started at different microseconds.
func darwinStart(sec, usec int64) uint64 {
	if sec < 0 || usec < 0 {
		return 0
	}
	return uint64(sec)*1_000_000 + uint64(usec)
}

// procargsEnviron is the environment in a KERN_PROCARGS2 record, each KEY=VALUE followed by a
// NUL as /proc/PID/environ gives it; ok is false for a record that is not one. The record is
// argc (a 32-bit integer in the machine's order, little-endian on every Mac), the executable's
// path, NULs padding it, the argc arguments and then the environment, each ended by a NUL; an
// empty string or the record's end closes the environment.
func procargsEnviron(rec []byte) (env []byte, ok bool) {
	if len(rec) < 4 {
		return nil, false
	}
	argc := int(binary.LittleEndian.Uint32(rec))
	rest := rec[4:]
	i := bytes.IndexByte(rest, 0) // the executable's path
	if i < 0 {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for ; argc > 0; argc-- {
		if i = bytes.IndexByte(rest, 0); i < 0 {
			return nil, false
		}
		rest = rest[i+1:]
	}
	var out []byte
	for len(rest) > 0 {
		i = bytes.IndexByte(rest, 0)
		if i <= 0 {
			break
		}
		if bytes.IndexByte(rest[:i], '=') > 0 {
			out = append(append(out, rest[:i]...), 0)
		}
		rest = rest[i+1:]
	}
	return out, true
}

// pidLines are the PIDs of `lsof -t`, one per line; anything else is left out.
func pidLines(out []byte) []int {
	var pids []int
	for _, l := range bytes.Split(out, []byte{'\n'}) {
		if pid, err := strconv.Atoi(string(bytes.TrimSpace(l))); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// darwinLoad is the 1-minute load in vm.loadavg's record (struct loadavg: three fixed-point
// loads of 32 bits, then the scale as a 64-bit long at offset 16); 0 for anything else.
func darwinLoad(rec []byte) float64 {
	if len(rec) < 24 {
		return 0
	}
	scale := binary.LittleEndian.Uint64(rec[16:])
	if scale == 0 {
		return 0
	}
	return float64(binary.LittleEndian.Uint32(rec)) / float64(scale)
}
