package cost

import (
	"regexp"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input" toml:"input"`
	Output     float64 `json:"output" toml:"output"`
	CacheRead  float64 `json:"cache_read" toml:"cache_read"`
	CacheWrite float64 `json:"cache_write" toml:"cache_write"`
}

// Prices maps a model name (or the start of one) to its price.
type Prices map[string]Price

// DefaultPrices are the list prices of current Claude and OpenAI models. A model is priced
// by the longest name here that its own name starts with, once a date suffix and a context
// tag ("[1m]") are taken off. A name ending in "*" is a family: it prices a model that no
// other entry knows (a release newer than this table) at the family's latest price, so a
// new default model does not make a loop's cost unknown.
var DefaultPrices = Prices{
	// Families, for models newer than the entries below.
	"claude-opus-*":   {5, 25, 0.50, 6.25},
	"claude-sonnet-*": {3, 15, 0.30, 3.75},
	"claude-haiku-*":  {1, 5, 0.10, 1.25},
	"gpt-5*":          {1.25, 10, 0.125, 0},
	// Anthropic (cache write: the 5-minute cache).
	"claude-opus-4-8":   {5, 25, 0.50, 6.25},
	"claude-opus-4-7":   {5, 25, 0.50, 6.25},
	"claude-opus-4-6":   {5, 25, 0.50, 6.25},
	"claude-opus-4-5":   {5, 25, 0.50, 6.25},
	"claude-opus-4-1":   {15, 75, 1.50, 18.75},
	"claude-opus-4":     {15, 75, 1.50, 18.75},
	"claude-sonnet-5":   {3, 15, 0.30, 3.75},
	"claude-sonnet-4":   {3, 15, 0.30, 3.75},
	"claude-3-7-sonnet": {3, 15, 0.30, 3.75},
	"claude-haiku-4-5":  {1, 5, 0.10, 1.25},
	"claude-3-5-haiku":  {0.80, 4, 0.08, 1},
	// OpenAI (cached input is the cache read; there is no separate cache write).
	"gpt-5.1-codex-mini": {0.25, 2, 0.025, 0},
	"gpt-5.1-codex":      {1.25, 10, 0.125, 0},
	"gpt-5.1":            {1.25, 10, 0.125, 0},
	"gpt-5-codex":        {1.25, 10, 0.125, 0},
	"gpt-5-mini":         {0.25, 2, 0.025, 0},
	"gpt-5-nano":         {0.05, 0.40, 0.005, 0},
	"gpt-5":              {1.25, 10, 0.125, 0},
	"gpt-4.1-mini":       {0.40, 1.60, 0.10, 0},
	"gpt-4.1":            {2, 8, 0.50, 0},
	"o4-mini":            {1.10, 4.40, 0.275, 0},
	"o3":                 {2, 8, 0.50, 0},
}

// With returns the table with overrides on top (swarm.toml's [pricing."model"]).
func (p Prices) With(overrides Prices) Prices {
	out := Prices{}
	for k, v := range p {
		out[k] = v
	}
	for k, v := range overrides {
		out[k] = v
	}
	return out
}

var dateSuffix = regexp.MustCompile(`-\d{8}$`)

// Normalize is a model name as the table knows it: no context tag, no date suffix.
func Normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.Index(m, "["); i > 0 {
		m = m[:i]
	}
	return dateSuffix.ReplaceAllString(m, "")
}

// Lookup finds a model's price: see Match.
func (p Prices) Lookup(model string) (Price, bool) {
	k, ok := p.Match(model)
	return p[k], ok
}

// Match names the entry that prices a model: an exact entry (overrides use exact names),
// else the longest entry the model's name starts with, else the longest family ("name*")
// it belongs to. Overrides are entries like any other, so a user's own price for a model or
// family always comes before a default family's.
func (p Prices) Match(model string) (string, bool) {
	if _, ok := p[model]; ok {
		return model, true
	}
	m := Normalize(model)
	best, family := "", ""
	for k := range p {
		if f, ok := strings.CutSuffix(k, "*"); ok {
			if strings.HasPrefix(m, f) && len(k) > len(family) {
				family = k
			}
			continue
		}
		if (m == k || strings.HasPrefix(m, k+"-") || strings.HasPrefix(m, k+".")) && len(k) > len(best) {
			best = k
		}
	}
	switch {
	case best != "":
		return best, true
	case family != "":
		return family, true
	}
	return "", false
}

// IsFamily reports whether an entry's name is a family ("claude-opus-*").
func IsFamily(key string) bool { return strings.HasSuffix(key, "*") }

// Usage is token use, in all four kinds.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// Add adds o.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
}

// Total is every token counted.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheRead + u.CacheWrite }

// Of is what u costs at price p.
func (u Usage) Of(p Price) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output + float64(u.CacheRead)*p.CacheRead +
		float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// ByModel is token use per model.
type ByModel map[string]Usage

// Total sums every model's use.
func (b ByModel) Total() Usage {
	var t Usage
	for _, u := range b {
		t.Add(u)
	}
	return t
}

// Price prices every model's use; unknown lists the models the table has no price for, in
// which case the cost is not known (ok false).
func (b ByModel) Price(p Prices) (usd float64, unknown []string, ok bool) {
	for model, u := range b {
		pr, found := p.Lookup(model)
		if !found {
			unknown = append(unknown, model)
			continue
		}
		usd += u.Of(pr)
	}
	return usd, unknown, len(unknown) == 0
}
