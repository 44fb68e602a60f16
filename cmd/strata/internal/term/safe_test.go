package term

import (
	"bytes"
	"testing"
)

func TestSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain job-1\tgpu\n", "plain job-1\tgpu\n"},
		{"résumé ✓", "résumé ✓"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"a\x1b[2Kb\rc", `a\x1b[2Kb\x0dc`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff utf8", `bad \xff utf8`},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var b bytes.Buffer
	n, err := Writer(&b).Write([]byte("x\x1by"))
	if err != nil || n != 3 || b.String() != `x\x1by` {
		t.Errorf("Writer: n=%d err=%v out=%q", n, err, b.String())
	}
}
