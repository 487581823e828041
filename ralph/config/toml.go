package config

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The values every table reads, and the messages that name a mistake's file and line.

// errWrongValue says a value is not of the kind supervisionKey.want describes.
var errWrongValue = errors.New("wrong value")

func setBool(dst **bool, v any) error {
	b, ok := v.(bool)
	if !ok {
		return errWrongValue
	}
	*dst = &b
	return nil
}

// setCount stores a whole number of at least min (0 or 1).
func setCount(dst **int, v any, min int) error {
	n64, ok := v.(int64)
	n := int(n64)
	if !ok || n < 0 || int64(n) != n64 {
		return errWrongValue
	}
	if n < min {
		return fmt.Errorf("must be at least %d", min)
	}
	*dst = &n
	return nil
}

// tomlText shows a decoded value the way it is written in TOML.
func tomlText(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprint(v)
}

// tomlError puts the file and line in front of a decoding error. A value the TOML syntax
// does not allow at all (enabled = yes) gets the same message as one of the wrong type.
func tomlError(path string, data []byte, err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) || pe.Position.Line == 0 {
		return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
	}
	line := pe.Position.Line
	// The decoder counts a newline that ends a bad line as part of the next one (an
	// unclosed [regent header); the byte offset of the error is exact.
	if s := pe.Position.Start; s >= 0 && s < len(data) {
		line = 1 + bytes.Count(data[:s], []byte("\n"))
	}
	msg := pe.Message
	if name, ok := strings.CutPrefix(pe.LastKey, "regent."); ok && strings.HasPrefix(msg, "expected value but found") {
		if k := supervisionKeyNamed(name); k != nil {
			msg = fmt.Sprintf("%s: expected %s, got %s", name, k.want, rawValue(data, line))
		}
	}
	return fmt.Errorf("%s:%d: %s", path, line, msg)
}

// rawValue is the text after "=" on a line of the file, without a trailing comment.
func rawValue(data []byte, line int) string {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	_, v, _ := strings.Cut(lines[line-1], "=")
	v, _, _ = strings.Cut(v, "#")
	return strings.TrimSpace(v)
}

// number accepts a TOML integer or float.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// stringList accepts an array of strings (a single string too, as a list of one).
func stringList(v any) ([]string, bool) {
	switch v := v.(type) {
	case string:
		return []string{v}, true
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
