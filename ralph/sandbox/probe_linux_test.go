package sandbox

import (
	"errors"
	"testing"
)

func TestProbeFailureNamesNamespacesAndTheirFix(t *testing.T) {
	s := probeFailure("bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.\nmore", errors.New("exit status 1"))
	if s.Namespaces != NamespacesOff || s.Fix == "" || s.Said == "" {
		t.Fatalf("namespaces off: %+v", s)
	}
	if want := "bubblewrap cannot create namespaces here: user namespaces are off (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0): bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces."; s.Problem() != want {
		t.Errorf("Problem() = %q", s.Problem())
	}
	s = probeFailure("", errors.New("signal: killed"))
	if s.Namespaces != NamespacesUnknown || s.Problem() != "bubblewrap fails here: signal: killed" {
		t.Errorf("silent failure: %+v", s)
	}
}
