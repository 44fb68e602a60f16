package slurm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// gpuGRES is what a GRES or TRES string says about GPUs.
type gpuGRES struct {
	Count   int
	Type    string // "" when untyped; "a100+v100" when several types
	Indices []int  // from "(IDX:0-3)"; nil when absent or N/A
}

// splitOutside splits s at commas that are not between open and close, so
// that "gpu:2(IDX:0,2),shard:1" (parentheses) or "n[1-2],m3" (brackets)
// give two items.
func splitOutside(s string, open, close rune) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case open:
			depth++
		case close:
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseGRES reads the GPU part of a node or job GRES string as slurmrestd
// prints it: "gpu:4", "gpu:a100:4", "gpu:a100:4(S:0-1)", "gpu:2(IDX:0-1)",
// "gpu:a100:0(IDX:N/A)", "gpu:a100:2,gpu:v100:2,shard:8", "(null)", "N/A",
// "". Items other than gpu are ignored; counts of several GPU items add up.
func parseGRES(s string) (gpuGRES, error) {
	var g gpuGRES
	var types []string
	for _, item := range splitOutside(strings.TrimSpace(s), '(', ')') {
		item = strings.TrimSpace(item)
		spec, paren, _ := strings.Cut(item, "(")
		fields := strings.Split(spec, ":")
		if fields[0] != "gpu" {
			continue
		}
		typ, n, err := typeAndCount(fields[1:])
		if err != nil {
			return gpuGRES{}, fmt.Errorf("parse gres %q: %w", s, err)
		}
		g.Count += n
		types = addType(types, typ)
		idx, err := parseIndexParen(paren)
		if err != nil {
			return gpuGRES{}, fmt.Errorf("parse gres %q: %w", s, err)
		}
		g.Indices = append(g.Indices, idx...)
	}
	g.Type = strings.Join(types, "+")
	sort.Ints(g.Indices)
	return g, nil
}

// parseTRESGPU reads the GPU part of a TRES request string: "gres/gpu:4",
// "gres/gpu:a100:4", "gres/gpu=8", "gres/gpu:a100=4", "gres/gpu" (one GPU),
// possibly among other items ("cpu=4,gres/gpu:2,gres/shard:1").
func parseTRESGPU(s string) (gpuGRES, error) {
	var g gpuGRES
	var types []string
	for _, item := range strings.Split(strings.TrimSpace(s), ",") {
		item = strings.TrimSpace(item)
		rest, ok := strings.CutPrefix(item, "gres/gpu")
		if !ok || rest != "" && rest[0] != ':' && rest[0] != '=' {
			continue
		}
		spec, count, hasEq := strings.Cut(rest, "=")
		var fields []string
		if spec != "" {
			fields = strings.Split(spec[1:], ":")
		}
		if hasEq {
			if _, err := strconv.Atoi(count); err != nil {
				return gpuGRES{}, fmt.Errorf("parse tres %q: gpu count %q is not a number", s, count)
			}
			fields = append(fields, count)
		}
		typ, n, err := typeAndCount(fields)
		if err != nil {
			return gpuGRES{}, fmt.Errorf("parse tres %q: %w", s, err)
		}
		g.Count += n
		types = addType(types, typ)
	}
	g.Type = strings.Join(types, "+")
	return g, nil
}

// typeAndCount interprets the fields after "gpu": [], [count], [type],
// [type, count]. A missing count means one.
func typeAndCount(fields []string) (string, int, error) {
	switch len(fields) {
	case 0:
		return "", 1, nil
	case 1:
		if n, err := strconv.Atoi(fields[0]); err == nil {
			return "", n, checkCount(n)
		}
		return strings.ToLower(fields[0]), 1, nil
	case 2:
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			return "", 0, fmt.Errorf("gpu count %q is not a number", fields[1])
		}
		return strings.ToLower(fields[0]), n, checkCount(n)
	}
	return "", 0, fmt.Errorf("too many fields in %q", strings.Join(fields, ":"))
}

func checkCount(n int) error {
	if n < 0 {
		return fmt.Errorf("negative gpu count %d", n)
	}
	return nil
}

func addType(types []string, t string) []string {
	if t == "" {
		return types
	}
	for _, x := range types {
		if x == t {
			return types
		}
	}
	return append(types, t)
}

// parseIndexParen reads "IDX:0-1,3)" (the part after "("); other
// parenthesised data such as "S:0-1)" yields nil.
func parseIndexParen(paren string) ([]int, error) {
	body, ok := strings.CutPrefix(strings.TrimSuffix(paren, ")"), "IDX:")
	if !ok || body == "N/A" || body == "" {
		return nil, nil
	}
	return parseIndexList(body)
}

// parseIndexList expands "0-3,5" to [0 1 2 3 5].
func parseIndexList(s string) ([]int, error) {
	var out []int
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad gpu index %q", r)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 4096 {
				return nil, fmt.Errorf("bad gpu index range %q", r)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// formatGPUTRES renders a GPU request for tres_per_node / tres_per_job:
// "gres/gpu:4" or "gres/gpu:a100:4".
// withGPUCount returns the TRES string raw (as Slurm holds it, e.g.
// "gres/gpu:a100:4,gres/nvme:1") with its GPUs set to n of type typ: every
// other item is kept in place, the GPU items become one at the position of
// the first.
func withGPUCount(raw, typ string, n int) string {
	gpu := formatGPUTRES(typ, n)
	var items []string
	placed := false
	for _, item := range strings.Split(raw, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case item == "gres/gpu" || strings.HasPrefix(item, "gres/gpu:") || strings.HasPrefix(item, "gres/gpu="):
			if !placed {
				items, placed = append(items, gpu), true
			}
		default:
			items = append(items, item)
		}
	}
	if !placed {
		items = append(items, gpu)
	}
	return strings.Join(items, ",")
}

func formatGPUTRES(typ string, n int) string {
	if typ == "" || strings.Contains(typ, "+") {
		return "gres/gpu:" + strconv.Itoa(n)
	}
	return "gres/gpu:" + typ + ":" + strconv.Itoa(n)
}
