package worker

import (
	"reflect"
	"testing"
)

func TestWorkerEnvOverridesAndFilters(t *testing.T) {
	env := workerEnv([]string{"A=1", "TMUX=/tmp/x", "B=2", "SWARM_WORKER_ID=old"}, map[string]string{"B": "3"}, "w", "id-1")
	want := []string{"A=1", "B=3", "SWARM_WORKER=w", "SWARM_WORKER_ID=id-1"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("workerEnv = %q, want %q", env, want)
	}
}
