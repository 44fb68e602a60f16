// Package burstbuffer models Slurm burst-buffer requests: it parses the
// directive text Slurm keeps in a job's burst_buffer field (#BB_LUA, #DW,
// #BB) and sizes such as "600G". It is a leaf package: it imports nothing of
// Strata's own.
package burstbuffer

import (
	"fmt"
	"math"
	"strings"
)

// Request is the burst-buffer space one job asks for.
type Request struct {
	// Plugin is the directive family: "lua" (#BB_LUA), "datawarp" (#DW) or
	// "generic" (#BB). Empty when the job asks for nothing.
	Plugin string `json:"plugin,omitempty"`
	// Pool is the pool named by pool=; "" means the plugin's default pool.
	Pool string `json:"pool,omitempty"`
	// Bytes is the total capacity= asked for, summed over directive lines.
	Bytes int64 `json:"bytes,omitempty"`
}

// prefixes maps a directive prefix to its plugin family. Longer prefixes come
// first so that "#BB_LUA" is not read as "#BB".
var prefixes = []struct{ prefix, plugin string }{
	{"#BB_LUA", "lua"},
	{"#DW", "datawarp"},
	{"#BB", "generic"},
}

// ParseDirective parses the burst-buffer text of a job (one or more lines
// such as "#BB_LUA pool=nvme capacity=600G" or "#DW jobdw capacity=10GB
// access_mode=striped type=scratch"). Lines that are not directives and
// directives without capacity= (stage_in, stage_out, ...) contribute
// nothing. Capacities of several lines are summed; the first pool= wins.
// Empty text gives the zero Request and no error. A malformed capacity, or
// directives of two different plugins, are errors.
func ParseDirective(text string) (Request, error) {
	var r Request
	for _, line := range strings.FieldsFunc(text, func(c rune) bool { return c == '\n' || c == '\r' }) {
		line = strings.TrimSpace(line)
		plugin, rest, ok := cutPrefix(line)
		if !ok {
			continue
		}
		if r.Plugin != "" && r.Plugin != plugin {
			return Request{}, fmt.Errorf("parse burst buffer directive: mixes %s and %s directives", r.Plugin, plugin)
		}
		r.Plugin = plugin
		if err := r.addOptions(rest); err != nil {
			return Request{}, fmt.Errorf("parse burst buffer directive %q: %w", line, err)
		}
	}
	return r, nil
}

func cutPrefix(line string) (plugin, rest string, ok bool) {
	for _, p := range prefixes {
		if rest, found := strings.CutPrefix(line, p.prefix); found {
			if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
				return "", "", false // e.g. "#BBX": not a directive
			}
			return p.plugin, rest, true
		}
	}
	return "", "", false
}

func (r *Request) addOptions(opts string) error {
	for _, f := range strings.Fields(opts) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue // verbs such as "jobdw"
		}
		switch strings.ToLower(k) {
		case "capacity":
			n, err := ParseSize(v)
			if err != nil {
				return err
			}
			if n > math.MaxInt64-r.Bytes {
				return fmt.Errorf("capacities add up to more than 8E (2^63-1 bytes)")
			}
			r.Bytes += n
		case "pool":
			if r.Pool == "" {
				r.Pool = v
			}
		}
	}
	return nil
}
