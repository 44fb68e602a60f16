package slurm

import "testing"

func TestMergeAdminCommentKeepsOtherTools(t *testing.T) {
	seg := "strata: workers=2 ps=0 rank=1 cycle=7"
	tests := []struct{ cur, want string }{
		{"", seg},
		{"strata: workers=4 ps=1 rank=3 cycle=6", seg},
		{`{"jobstats":1}`, `{"jobstats":1}; ` + seg},
		{`site=xyz; strata: workers=4 ps=1 rank=3 cycle=6`, `site=xyz; ` + seg},
		{"site=xyz;", "site=xyz; " + seg},
	}
	for _, tt := range tests {
		if got := MergeAdminComment(tt.cur, seg); got != tt.want {
			t.Errorf("MergeAdminComment(%q) = %q, want %q", tt.cur, got, tt.want)
		}
	}
}
