package slurm

import (
	"fmt"
	"strconv"
	"strings"
)

// expandHostlist expands a Slurm host list such as "node[1-2,5],gpu-a[01-03]"
// into node names, keeping Slurm's order. Zero padding of ranges is kept.
// Only one bracket group per name is supported (Slurm's usual form).
func expandHostlist(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "(null)" || s == "None assigned" {
		return nil, nil
	}
	var out []string
	for _, item := range splitOutside(s, '[', ']') {
		open := strings.IndexByte(item, '[')
		if open < 0 {
			out = append(out, item)
			continue
		}
		closeAt := strings.IndexByte(item, ']')
		if closeAt < open {
			return nil, fmt.Errorf("parse host list %q: unbalanced brackets", s)
		}
		prefix, suffix := item[:open], item[closeAt+1:]
		for _, r := range strings.Split(item[open+1:closeAt], ",") {
			names, err := expandRange(prefix, r, suffix)
			if err != nil {
				return nil, fmt.Errorf("parse host list %q: %w", s, err)
			}
			out = append(out, names...)
		}
	}
	return out, nil
}

func expandRange(prefix, r, suffix string) ([]string, error) {
	lo, hi, isRange := strings.Cut(r, "-")
	a, err := strconv.Atoi(lo)
	if err != nil {
		return nil, fmt.Errorf("bad range %q", r)
	}
	b := a
	if isRange {
		if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 100000 {
			return nil, fmt.Errorf("bad range %q", r)
		}
	}
	width := len(lo)
	out := make([]string, 0, b-a+1)
	for i := a; i <= b; i++ {
		out = append(out, fmt.Sprintf("%s%0*d%s", prefix, width, i, suffix))
	}
	return out, nil
}
