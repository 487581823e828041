package words

import "fmt"

// Plural is a count with its noun, which takes an s unless the count is one: "0 specs",
// "1 spec", "3 specs". The nouns said this way all form their plural with an s.
func Plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Count is a large number at a glance, to one decimal in thousands or millions: "950",
// "34.5K", "1.2M".
func Count(n int64) string {
	// The thresholds are where the shorter form would round up to the next unit: 999,950 is
	// "1.0M", not "1000.0K".
	switch {
	case n >= 999_950:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
