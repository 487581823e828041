package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdJSONL parses FILE as JSON Lines: every non-blank line must be one JSON object. It prints
// each again as compact JSON with sorted keys, one per line, for stdout assertions.
func cmdJSONL(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: jsonl FILE")
	}
	n := 0
	for i, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			ts.Fatalf("%s line %d is not a JSON object: %v\n%s", args[0], i+1, err, line)
		}
		out, _ := json.Marshal(obj) // maps marshal with sorted keys
		fmt.Fprintln(ts.Stdout(), string(out))
		n++
	}
	if n == 0 {
		ts.Fatalf("%s holds no JSON lines", args[0])
	}
}
