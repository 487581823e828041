// Package words says durations, counts and plurals to people, each style in one place, so
// that a table, a log line and a status page that show the same thing show it the same way.
//
// Durations come in several styles, each with its readers pinned by tests and scenarios:
//
//   - Duration, to the second with spaces: "42s", "3m 42s", "1h 2m 3s" (loop logs, summaries).
//   - MinutesSeconds, the same with the minutes always there: "0m 5s", "15m 32s".
//   - HoursMinutes, to the minute: "5m", "1h 23m" (an agent session's length).
//   - Short, the two largest units: "42s", "5m", "1h 3m", "2d 4h" (tables, status lines).
//   - Ago, Short for a moment past: "3m ago", or "-" when the moment is not known.
//   - Terse, every unit that is not zero, unspaced: "30m", "1h30m", "2d" (intervals, read
//     back by the heartbeat command's parser).
//   - Compact, Go's own form: "5m42s", "1h0m5s" (iterations.log, read by scripts).
//
// Counts: Plural ("1 spec", "3 specs") and Count ("950", "34.5K", "1.2M").
//
// The package stands on the standard library alone, so every layer of the module may use it.
package words
